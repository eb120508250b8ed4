"""``flip``: reverse the order of elements along an axis."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


def _flip(array: Any, axis: int) -> Any:
    """``array`` reversed along ``axis``, as a view."""
    return backend.get_array_module(array).flip(array, axis)


class Flip(FunctionNode):
    """Reverses an array along ``axis`` (a view)."""

    def __init__(self, axis: int) -> None:
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f'axis must be an int; got {axis!r}')
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        if self.axis >= 0:
            type_check.expect(x_type.ndim > self.axis)
        else:
            type_check.expect(x_type.ndim >= -self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        return _flip(x, self.axis),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return flip(grad_outputs[0], self.axis),


def flip(x: Any, axis: int) -> Variable:
    """Reverses the order of the elements of ``x`` along ``axis``.

    Args:
        x: A Variable or array.
        axis: The axis to reverse; negative values count from the last axis.

    Returns:
        Variable: The flipped variable.

    .. admonition:: Example

        >>> x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
        >>> F.flip(x, 1).array
        array([[3., 2., 1.],
               [6., 5., 4.]], dtype=float32)
    """
    return Flip(axis).apply((x,))[0]
