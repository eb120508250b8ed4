"""``max``, ``min``, ``argmax`` and ``argmin`` over given axes."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.reshape import reshape
from catena.utils import type_check
from catena.variable import Variable


def _reduction_axes(axis: Any) -> tuple[int, ...] | None:
    """Normalizes the ``axis`` argument of max and min to None or a tuple."""
    if axis is None:
        return None
    if isinstance(axis, (int, numpy.integer)) and not isinstance(axis, bool):
        return (int(axis),)
    if isinstance(axis, tuple) and all(
            isinstance(a, (int, numpy.integer)) and not isinstance(a, bool) for a in axis):
        if len(set(axis)) != len(axis):
            raise ValueError(f'axis contains duplicate values: {axis}')
        return tuple(int(a) for a in axis)
    raise TypeError(f'axis must be None, an int or a tuple of ints; got {axis!r}')


def _check_axis(x_type: Any, axis: int) -> None:
    named = type_check.make_variable(axis, 'axis')
    if axis >= 0:
        type_check.expect(named < x_type.ndim)
    else:
        type_check.expect(-named - 1 < x_type.ndim)


class SelectorBase(FunctionNode):
    """Selects the largest or smallest element over the reduced axes."""

    def __init__(self, axis: Any = None, keepdims: bool = False) -> None:
        self.axis = _reduction_axes(axis)
        self.keepdims = keepdims

    def _select(self, xp: Any, x: Any) -> Any:
        raise NotImplementedError

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f')
        for axis in self.axis or ():
            _check_axis(x_type, axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        return xp.asarray(self._select(xp, x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        ndim = x.ndim
        axes = range(ndim) if self.axis is None else [a % ndim for a in self.axis]
        kept = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
        # Every element equal to the selected value gets the gradient (ties included).
        mask = (x.array == y.array.reshape(kept)).astype(x.dtype, copy=False)
        return reshape(gy, kept) * mask,


class Max(SelectorBase):
    """Maximum of the elements over axes."""

    def _select(self, xp: Any, x: Any) -> Any:
        return xp.amax(x, axis=self.axis, keepdims=self.keepdims)


class Min(SelectorBase):
    """Minimum of the elements over axes."""

    def _select(self, xp: Any, x: Any) -> Any:
        return xp.amin(x, axis=self.axis, keepdims=self.keepdims)


class IndexSelectorBase(FunctionNode):
    """Selects the index of the largest or smallest element along an axis."""

    def __init__(self, axis: Any = None) -> None:
        if axis is not None and (isinstance(axis, bool)
                                 or not isinstance(axis, (int, numpy.integer))):
            raise TypeError(f'axis must be None or an int; got {axis!r}')
        self.axis = None if axis is None else int(axis)

    def _select(self, xp: Any, x: Any) -> Any:
        raise NotImplementedError

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f')
        if self.axis is not None:
            _check_axis(x_type, self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        return xp.asarray(self._select(xp, x), dtype=numpy.int32),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return None,


class ArgMax(IndexSelectorBase):
    """Index of the maximum along an axis (of the flattened array if None)."""

    def _select(self, xp: Any, x: Any) -> Any:
        return xp.argmax(x, axis=self.axis)


class ArgMin(IndexSelectorBase):
    """Index of the minimum along an axis (of the flattened array if None)."""

    def _select(self, xp: Any, x: Any) -> Any:
        return xp.argmin(x, axis=self.axis)


def max(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:  # noqa: A001
    """Maximum of the elements of ``x`` over ``axis``.

    The gradient flows to every element that equals the maximum (all of
    them when there are ties).

    Args:
        x: A Variable or array of floating point type.
        axis: None (all axes), an int or a tuple of ints.
        keepdims: Keep the reduced axes with length one.

    Returns:
        Variable: The maximum.

    .. admonition:: Example

        >>> x = np.array([[1.0, 4.0], [3.0, 2.0]], dtype=np.float32)
        >>> F.max(x, axis=1).array
        array([4., 3.], dtype=float32)
    """
    return Max(axis, keepdims).apply((x,))[0]


def min(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:  # noqa: A001
    """Minimum of the elements of ``x`` over ``axis``.

    The gradient flows to every element that equals the minimum (all of
    them when there are ties).

    Args:
        x: A Variable or array of floating point type.
        axis: None (all axes), an int or a tuple of ints.
        keepdims: Keep the reduced axes with length one.

    Returns:
        Variable: The minimum.

    .. admonition:: Example

        >>> x = np.array([[1.0, 4.0], [3.0, 2.0]], dtype=np.float32)
        >>> F.min(x, axis=1).array
        array([1., 2.], dtype=float32)
    """
    return Min(axis, keepdims).apply((x,))[0]


def argmax(x: Any, axis: Any = None) -> Variable:
    """Index of the maximum of ``x`` along ``axis``.

    Args:
        x: A Variable or array of floating point type.
        axis: None (index into the flattened array) or an int.

    Returns:
        Variable: The indices, as int32; not differentiable.

    .. admonition:: Example

        >>> x = np.array([[1.0, 4.0], [3.0, 2.0]], dtype=np.float32)
        >>> F.argmax(x, axis=1).array
        array([1, 0], dtype=int32)
    """
    return ArgMax(axis).apply((x,))[0]


def argmin(x: Any, axis: Any = None) -> Variable:
    """Index of the minimum of ``x`` along ``axis``.

    Args:
        x: A Variable or array of floating point type.
        axis: None (index into the flattened array) or an int.

    Returns:
        Variable: The indices, as int32; not differentiable.

    .. admonition:: Example

        >>> x = np.array([[1.0, 4.0], [3.0, 2.0]], dtype=np.float32)
        >>> F.argmin(x, axis=1).array
        array([0, 1], dtype=int32)
    """
    return ArgMin(axis).apply((x,))[0]
