"""``average`` (alias ``mean``): the plain or weighted mean over given axes."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.array.broadcast import broadcast_to
from catena.functions.array.reshape import reshape
from catena.functions.math.minmax import _check_axis, _reduction_axes
from catena.functions.math.sum import sum as _sum
from catena.utils import type_check
from catena.variable import Variable


class Mean(FunctionNode):
    """Mean of the elements over axes."""

    def __init__(self, axis: Any = None, keepdims: bool = False) -> None:
        self.axis = _reduction_axes(axis)
        self.keepdims = keepdims

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f')
        for axis in self.axis or ():
            _check_axis(x_type, axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        return xp.asarray(x.mean(axis=self.axis, keepdims=self.keepdims)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        shape = self._in_shape
        ndim = len(shape)
        axes = range(ndim) if self.axis is None else [a % ndim for a in self.axis]
        count = 1
        for axis in axes:
            count *= shape[axis]
        gy = gy * gy.dtype.type(1.0 / count) if count else gy
        if not self.keepdims:
            gy = reshape(gy, tuple(1 if i in axes else n for i, n in enumerate(shape)))
        return broadcast_to(gy, shape),


def average(x: Any, axis: Any = None, weights: Any = None, keepdims: bool = False) -> Variable:
    """The (weighted) average of the elements of ``x`` over ``axis``.

    Args:
        x: A Variable or array of floating point type.
        axis: None (all axes), an int or a tuple of ints. A tuple is not
            allowed together with ``weights``.
        weights: None for the plain mean, or the weights: an array of the
            shape of ``x`` when ``axis`` is None, else a 1-D array of length
            ``x.shape[axis]``.
        keepdims: Keep the reduced axes with length one.

    Returns:
        Variable: The average.

    .. admonition:: Example

        >>> x = np.array([[1.0, 2.0], [3.0, 6.0]], dtype=np.float32)
        >>> F.average(x, axis=1).array
        array([1.5, 4.5], dtype=float32)
        >>> F.average(x, axis=1, weights=np.array([3.0, 1.0], dtype=np.float32)).array
        array([1.25, 3.75], dtype=float32)
    """
    if weights is None:
        return Mean(axis, keepdims).apply((x,))[0]
    _arguments.array('average', 'weights', weights)
    axes = _reduction_axes(axis)
    if axes is None:
        if weights.shape != x.shape:
            raise ValueError(f'weights must have the shape of x when axis is None; got '
                             f'weights of shape {weights.shape} for x of shape {x.shape}')
    else:
        if len(axes) > 1:
            raise ValueError(f'a tuple axis is not supported together with weights; '
                             f'got axis={axis}')
        if not -x.ndim <= axes[0] < x.ndim:
            raise ValueError(f'axis {axes[0]} is out of range for x of shape {x.shape}')
        target = axes[0] % x.ndim
        if weights.shape != (x.shape[target],):
            raise ValueError(f'weights must be 1-D of length x.shape[axis] = '
                             f'{x.shape[target]}; got shape {weights.shape}')
        weights = reshape(weights, tuple(n if i == target else 1
                                         for i, n in enumerate(x.shape)))
    total = _sum(x * weights, axes, keepdims)
    return total / broadcast_to(_sum(weights), total.shape)


#: ``mean`` is another name of :func:`average`, as in Chainer.
mean = average
