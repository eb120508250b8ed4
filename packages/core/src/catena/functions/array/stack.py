"""``stack``: join arrays of one shape along a new axis."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array import separate as _separate  # a module: the two import each other
from catena.utils import type_check
from catena.variable import Variable


class Stack(FunctionNode):
    """Stacks arrays of the same shape and dtype along a new axis."""

    def __init__(self, axis: int = 0) -> None:
        if not isinstance(axis, int):
            raise TypeError(f'axis must be an int; got {axis!r}')
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        type_check._argname(in_types, tuple(f'xs[{i}]' for i in range(len(in_types))))
        first = in_types[0]
        if self.axis >= 0:
            type_check.expect(self.axis <= first.ndim)
        else:
            type_check.expect(-self.axis - 1 <= first.ndim)
        for x_type in in_types[1:]:
            type_check.expect(x_type.shape == first.shape, x_type.dtype == first.dtype)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(inputs[0])
        self._axis = self.axis % (inputs[0].ndim + 1)
        return xp.stack(inputs, axis=self._axis),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return _separate.separate(grad_outputs[0], self._axis)


def stack(xs: Any, axis: int = 0) -> Variable:
    """Stacks Variables or arrays of one shape along a new axis.

    Args:
        xs: A list or tuple of Variables or arrays with the same shape and
            dtype.
        axis: The position of the new axis in the result, between
            ``-ndim - 1`` and ``ndim`` (``ndim`` of each input).

    Returns:
        Variable: The stacked variable, with one more axis than the inputs.

    .. admonition:: Example

        >>> x1 = np.arange(3, dtype=np.float32)
        >>> x2 = np.ones(3, dtype=np.float32)
        >>> F.stack([x1, x2], axis=1).array
        array([[0., 1.],
               [1., 1.],
               [2., 1.]], dtype=float32)
    """
    return Stack(axis).apply(xs)[0]
