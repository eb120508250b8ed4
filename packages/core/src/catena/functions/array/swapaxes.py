"""``swapaxes``: interchange two axes of an array."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


def _expect_axis(axis: int, ndim: Any) -> None:
    if axis >= 0:
        type_check.expect(axis < ndim)
    else:
        type_check.expect(-axis <= ndim)


class Swapaxes(FunctionNode):
    """Interchanges ``axis1`` and ``axis2`` (a view)."""

    def __init__(self, axis1: int, axis2: int) -> None:
        for name, axis in (('axis1', axis1), ('axis2', axis2)):
            if not isinstance(axis, int):
                raise TypeError(f'{name} must be an int; got {axis!r}')
        self.axis1 = axis1
        self.axis2 = axis2

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        _expect_axis(self.axis1, in_types[0].ndim)
        _expect_axis(self.axis2, in_types[0].ndim)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return inputs[0].swapaxes(self.axis1, self.axis2),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return Swapaxes(self.axis1, self.axis2).apply(grad_outputs)


def swapaxes(x: Any, axis1: int, axis2: int) -> Variable:
    """Interchanges two axes of ``x``.

    Args:
        x: A Variable or array.
        axis1: The first axis (negative values count from the end).
        axis2: The second axis.

    Returns:
        Variable: A view of ``x`` with the two axes swapped.

    .. admonition:: Example

        >>> x = np.zeros((2, 3, 4), dtype=np.float32)
        >>> F.swapaxes(x, 0, 2).shape
        (4, 3, 2)
    """
    return Swapaxes(axis1, axis2).apply((x,))[0]
