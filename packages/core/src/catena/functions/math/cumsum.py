"""``cumsum``: the cumulative sum along an axis."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.reshape import reshape
from catena.functions.math._cumulative import flip
from catena.functions.math.minmax import _check_axis
from catena.utils import force_array, type_check
from catena.variable import Variable


def _int_or_none(axis: Any) -> int | None:
    if axis is None:
        return None
    if isinstance(axis, bool) or not isinstance(axis, (int, numpy.integer)):
        raise TypeError(f'axis must be None or an int; got {axis!r}')
    return int(axis)


class Cumsum(FunctionNode):
    """Cumulative sum along an axis (of the flattened array if the axis is None)."""

    def __init__(self, axis: Any = None) -> None:
        self.axis = _int_or_none(axis)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f')
        if self.axis is not None:
            _check_axis(x_type, self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        return force_array(xp.cumsum(x, axis=self.axis)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        # The adjoint of a cumulative sum is the cumulative sum from the end.
        axis = 0 if self.axis is None else self.axis
        gx = flip(cumsum(flip(gy, axis), axis), axis)
        return reshape(gx, self._in_shape),


def cumsum(x: Any, axis: Any = None) -> Variable:
    """The cumulative sum of the elements of ``x`` along ``axis``.

    Args:
        x: A Variable or array of floating point type.
        axis: An int, or None to sum over the flattened array (the result
            is then 1-D).

    Returns:
        Variable: The cumulative sums.

    .. admonition:: Example

        >>> x = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
        >>> F.cumsum(x, axis=1).array
        array([[1., 3.],
               [3., 7.]], dtype=float32)
        >>> F.cumsum(x).array
        array([ 1.,  3.,  6., 10.], dtype=float32)
    """
    return Cumsum(axis).apply((x,))[0]
