"""``rollaxis``: roll an axis backwards to a given position."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


def _check_int(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f'{name} must be an int; got {value!r}')
    return value


class Rollaxis(FunctionNode):
    """Moves ``axis`` so that it lies before the axis that was at ``start`` (a view)."""

    def __init__(self, axis: int, start: int = 0) -> None:
        self.axis = _check_int(axis, 'axis')
        self.start = _check_int(start, 'start')

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        if self.axis >= 0:
            type_check.expect(x_type.ndim > self.axis)
        else:
            type_check.expect(x_type.ndim >= -self.axis)
        if self.start >= 0:
            type_check.expect(x_type.ndim >= self.start)
        else:
            type_check.expect(x_type.ndim >= -self.start)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        ndim = x.ndim
        axis = self.axis % ndim
        start = self.start + ndim if self.start < 0 else self.start
        # Where the axis ends up: before the old axis `start`, which shifts left
        # when the moved axis came from before it.
        self._moved = (axis, start - 1 if axis < start else start)
        return backend.get_array_module(x).moveaxis(x, *self._moved),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        axis, position = self._moved
        # Roll it back from `position` to `axis`.
        return rollaxis(grad_outputs[0], position, axis + 1 if position < axis else axis),


def rollaxis(x: Any, axis: int, start: int = 0) -> Variable:
    """Rolls the axis ``axis`` of ``x`` backwards until it lies at ``start``.

    It is kept for compatibility; :func:`moveaxis` is easier to read.

    Args:
        x: A Variable or array.
        axis: The axis to move.
        start: The axis before which it is placed (``-x.ndim <= start <=
            x.ndim``); the other axes keep their order.

    Returns:
        Variable: The variable with the axis moved.

    .. admonition:: Example

        >>> x = np.zeros((3, 4, 5, 6), dtype=np.float32)
        >>> F.rollaxis(x, 3, 1).shape
        (3, 6, 4, 5)
        >>> F.rollaxis(x, 2).shape
        (5, 3, 4, 6)
    """
    return Rollaxis(axis, start).apply((x,))[0]
