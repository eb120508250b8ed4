"""``broadcast_to``: broadcast an array to a shape."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.math import sum_to  # a module: the two import each other
from catena.utils import type_check
from catena.variable import Variable


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


def broadcast_to(x: Any, shape: Any) -> Variable:
    """Broadcasts ``x`` to ``shape``, as :func:`numpy.broadcast_to`.

    Args:
        x: A Variable or array.
        shape: The target shape.

    Returns:
        Variable: ``x`` broadcast to ``shape`` (``x`` itself when it already
        has that shape).
    """
    if x.shape == tuple(shape):
        return x if isinstance(x, Variable) else Variable(x, requires_grad=False)
    return BroadcastTo(shape).apply((x,))[0]
