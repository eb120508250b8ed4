"""``squeeze``: remove axes of length one."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.array.reshape import reshape
from catena.utils import type_check
from catena.variable import Variable


def _normalize_axis(axis: Any) -> tuple[int, ...] | None:
    if axis is None:
        return None
    if isinstance(axis, int):
        return (axis,)
    if isinstance(axis, (tuple, list)) and all(isinstance(a, int) for a in axis):
        return tuple(axis)
    raise TypeError(f'axis must be None, an int or a tuple of ints; got {axis!r}')


class Squeeze(FunctionNode):
    """Removes axes of length one (all of them, or those in ``axis``)."""

    def __init__(self, axis: Any = None) -> None:
        self.axis = _normalize_axis(axis)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        for axis in self.axis or ():
            if axis >= 0:
                type_check.expect(axis < x_type.ndim)
            else:
                type_check.expect(-axis <= x_type.ndim)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        for axis in self.axis or ():
            if x.shape[axis] != 1:
                raise ValueError(f'squeeze: axis {axis} has length {x.shape[axis]}, not 1')
        return x.squeeze(self.axis),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return reshape(grad_outputs[0], self._in_shape),


def squeeze(x: Any, axis: Any = None) -> Variable:
    """Removes axes of length one from ``x``.

    Args:
        x: A Variable or array.
        axis: None to remove every axis of length one, or an int or tuple of
            ints naming the axes to remove.

    Returns:
        Variable: A view of ``x`` without those axes.

    Raises:
        ValueError: An axis in ``axis`` has a length other than one.

    .. admonition:: Example

        >>> x = np.zeros((1, 2, 1, 3), dtype=np.float32)
        >>> F.squeeze(x).shape
        (2, 3)
        >>> F.squeeze(x, axis=2).shape
        (1, 2, 3)
    """
    try:
        return Squeeze(axis).apply((x,))[0]
    except AttributeError:
        _arguments.blame('squeeze', x=x)
        raise
