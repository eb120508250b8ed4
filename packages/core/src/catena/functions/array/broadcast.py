"""``broadcast`` and ``broadcast_to``: broadcast arrays to a common or given shape."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.math import sum_to  # a module: the two import each other
from catena.utils import type_check
from catena.variable import Variable, as_variable


class Broadcast(FunctionNode):
    """Broadcasts arrays against each other (read-only views)."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        if not type_check.in_light_mode():
            type_check._argname(in_types, [f'args[{i}]' for i in range(len(in_types))])
        type_check.expect_broadcast_shapes(*[x_type.shape for x_type in in_types])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._in_shapes = [x.shape for x in inputs]
        return tuple(backend.get_array_module(inputs[0]).broadcast_arrays(*inputs))

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return tuple(None if grad_outputs[i] is None
                     else sum_to.sum_to(grad_outputs[i], self._in_shapes[i]) for i in indexes)


class BroadcastTo(FunctionNode):
    """Broadcasts an array to a given shape (a read-only view)."""

    def __init__(self, shape: Any) -> None:
        self._shape = tuple(shape)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        ndim = len(self._shape)
        type_check.expect(x_type.ndim <= ndim)
        lead = ndim - type_check.eval(x_type.ndim)
        for i in range(type_check.eval(x_type.ndim)):
            target = self._shape[lead + i]
            type_check.expect((x_type.shape[i] == 1) | (x_type.shape[i] == target))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return backend.get_array_module(x).broadcast_to(x, self._shape),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return sum_to.sum_to(grad_outputs[0], self._in_shape),


def broadcast(*args: Any) -> Any:
    """Broadcasts the given variables against each other, as :func:`numpy.broadcast_arrays`.

    Args:
        args: Variables or arrays whose shapes can be broadcast together.

    Returns:
        Variable or tuple of Variable: One broadcast variable per argument;
        a single argument is returned as a Variable (not a tuple).

    .. admonition:: Example

        >>> x = np.array([[1], [2]], dtype=np.float32)
        >>> y = np.array([3, 4, 5], dtype=np.float32)
        >>> bx, by = F.broadcast(x, y)
        >>> bx.shape, by.shape
        ((2, 3), (2, 3))
    """
    if len(args) == 1:
        return as_variable(args[0])
    return Broadcast().apply(args)


def broadcast_to(x: Any, shape: Any) -> Variable:
    """Broadcasts ``x`` to ``shape``, as :func:`numpy.broadcast_to`.

    Args:
        x: A Variable or array.
        shape: The target shape.

    Returns:
        Variable: ``x`` broadcast to ``shape`` (``x`` itself when it already
        has that shape).
    """
    if _arguments.has_shape('broadcast_to', x, shape):
        return x if isinstance(x, Variable) else Variable(x, requires_grad=False)
    return BroadcastTo(shape).apply((x,))[0]
