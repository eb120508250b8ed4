"""``repeat``: repeat each element of an array."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, numpy.integer)) and not isinstance(value, bool)


def _is_count(value: Any) -> bool:
    """An int, or a bool (counting 0 or 1) as NumPy takes it."""
    return isinstance(value, (int, numpy.integer))


class Repeat(FunctionNode):
    """Repeats each element ``repeats`` times along ``axis`` (of the flattened array
    when ``axis`` is None)."""

    def __init__(self, repeats: Any, axis: int | None = None) -> None:
        if _is_count(repeats):
            repeats = (repeats,)
        if not isinstance(repeats, (tuple, list)) or not all(_is_count(r) for r in repeats):
            raise TypeError(f'repeats must be an int or a tuple of ints; got {repeats!r}')
        if any(r < 0 for r in repeats):
            raise ValueError(f'repeats must not be negative; got {repeats!r}')
        if axis is not None and not _is_int(axis):
            raise TypeError(f'axis must be an int or None; got {axis!r}')
        self.repeats = tuple(int(r) for r in repeats)
        self.axis = None if axis is None else int(axis)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        if self.axis is None:
            if len(self.repeats) > 1:
                type_check.expect(x_type.size == len(self.repeats))
            return
        if self.axis >= 0:
            type_check.expect(x_type.ndim > self.axis)
        else:
            type_check.expect(x_type.ndim >= -self.axis)
        if len(self.repeats) > 1:
            type_check.expect(x_type.shape[self.axis] == len(self.repeats))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        repeats: Any = self.repeats[0] if len(self.repeats) == 1 else self.repeats
        return backend.get_array_module(x).repeat(x, repeats, self.axis),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return RepeatGrad(self.repeats, self.axis, self._in_shape).apply(grad_outputs)


class RepeatGrad(FunctionNode):
    """Sums the gradients of the copies of each element."""

    def __init__(self, repeats: tuple[int, ...], axis: int | None,
                 in_shape: tuple[int, ...]) -> None:
        self.repeats = repeats
        self.axis = axis
        self.in_shape = in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        if self.axis is None:
            axis = 0
            shape: tuple[int, ...] = (int(numpy.prod(self.in_shape)),)
        else:
            axis = self.axis % len(self.in_shape)
            shape = self.in_shape
        if gy.size == 0:
            return xp.zeros(self.in_shape, gy.dtype),
        if len(self.repeats) == 1:
            # Each element's copies are adjacent: fold them into a new axis.
            r = self.repeats[0]
            folded = gy.reshape(shape[:axis] + (shape[axis], r) + shape[axis + 1:])
            gx = folded.sum(axis=axis + 1)
        else:
            repeats = numpy.asarray(self.repeats)
            present = numpy.flatnonzero(repeats)
            starts = (numpy.cumsum(repeats) - repeats)[present]
            sums = xp.add.reduceat(gy, starts.tolist(), axis=axis)
            if len(present) == len(repeats):
                gx = sums
            else:  # elements repeated zero times get no gradient
                gx = xp.zeros(shape, gy.dtype)
                gx[(slice(None),) * axis + (present.tolist(),)] = sums
        return gx.reshape(self.in_shape),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return Repeat(self.repeats, self.axis).apply(grad_outputs)


def repeat(x: Any, repeats: Any, axis: int | None = None) -> Variable:
    """Repeats each element of ``x``, as :func:`numpy.repeat`.

    Args:
        x: A Variable or array.
        repeats: How many times each element is repeated: an int for all,
            or a tuple with one count per element along ``axis`` (a bool
            counts as 0 or 1, as in NumPy).
        axis: The axis along which to repeat; None repeats the elements of
            the flattened array and returns a one-dimensional variable.

    Returns:
        Variable: The repeated variable.

    .. admonition:: Example

        >>> x = np.array([[1, 2], [3, 4]], dtype=np.float32)
        >>> F.repeat(x, 2).array
        array([1., 1., 2., 2., 3., 3., 4., 4.], dtype=float32)
        >>> F.repeat(x, (1, 2), axis=0).array
        array([[1., 2.],
               [3., 4.],
               [3., 4.]], dtype=float32)
    """
    return Repeat(repeats, axis).apply((x,))[0]
