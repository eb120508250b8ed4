"""``max_pooling_nd`` (and ``max_pooling_1d`` / ``max_pooling_3d``): n-dimensional max pooling."""

from __future__ import annotations

from typing import Any

import numpy

from catena.configuration import config
from catena.function_node import FunctionNode
from catena.functions.pooling import _window, pooling_nd
from catena.utils import type_check
from catena.variable import Variable


class MaxPoolingND(pooling_nd._PoolingND):
    """Max pooling over the spatial axes of ``(n, c, *dims)``.

    After forward, ``indexes`` holds the tap (row-major position in the
    window) of each window's first maximum, ``(n, c, *outs)``. It is computed
    only when backprop is enabled or ``return_indices`` is set.
    """

    indexes: Any = None

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        self._in_dtype = x.dtype
        with_indexes = self.return_indices or config.enable_backprop
        y, self.indexes = _window.max_pool(x, self.ksize, self.stride, self.pad,
                                           self.cover_all, with_indexes)
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return MaxPoolingNDGrad(self).apply(grad_outputs)


class MaxPoolingNDGrad(FunctionNode):
    """The gradient of :class:`MaxPoolingND`: each ``gy`` goes to its window's maximum."""

    def __init__(self, mpoolnd: MaxPoolingND) -> None:
        self.mpoolnd = mpoolnd
        self.ndim = mpoolnd.ndim
        self.ksize = mpoolnd.ksize
        self.stride = mpoolnd.stride
        self.pad = mpoolnd.pad
        self.indexes = mpoolnd.indexes
        self._in_shape = mpoolnd._in_shape
        self._in_dtype = mpoolnd._in_dtype

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        return _window.scatter(gy, self.indexes, self.ksize, self.stride, self.pad,
                               self._in_shape[2:]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return MaxPoolingNDWithIndexes(self.mpoolnd).apply(grad_outputs)


class MaxPoolingNDWithIndexes(FunctionNode):
    """Reads ``x`` at the maxima that a :class:`MaxPoolingND` found (its grad's grad)."""

    def __init__(self, mpoolnd: MaxPoolingND) -> None:
        self.mpoolnd = mpoolnd
        self.ndim = mpoolnd.ndim
        self.ksize = mpoolnd.ksize
        self.stride = mpoolnd.stride
        self.pad = mpoolnd.pad
        self.indexes = mpoolnd.indexes

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim == 2 + self.ndim)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        return _window.gather(x, self.indexes, self.ksize, self.stride, self.pad),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return MaxPoolingNDGrad(self.mpoolnd).apply(grad_outputs)


def _apply(x: Any, ndim: int, ksize: Any, stride: Any, pad: Any, cover_all: bool,
           return_indices: bool) -> Any:
    func = MaxPoolingND(ndim, ksize, stride, pad, cover_all, return_indices)
    y = func.apply((x,))[0]
    if return_indices:
        return y, func.indexes.astype(numpy.intp)
    return y


def max_pooling_nd(x: Any, ksize: Any, stride: Any = None, pad: Any = 0,
                   cover_all: bool = True, return_indices: bool = False
                   ) -> Variable | tuple[Variable, Any]:
    """N-dimensional spatial max pooling.

    Each output pixel is the maximum of a window of ``ksize`` input pixels;
    windows start every ``stride`` pixels of the input padded with ``pad``
    pixels of ``-inf`` at both ends of each spatial axis.

    Args:
        x: A Variable or array ``(n, c, d_1, ..., d_N)``.
        ksize: The window size: an int (the same on every axis) or a tuple
            of ``N`` ints.
        stride: The stride (int or tuple); ``None`` uses ``ksize``.
        pad: The padding (int or tuple).
        cover_all: If True, add windows at the far end so that every input
            pixel falls into some window (the output size rounds up; see
            :func:`catena.utils.conv.get_conv_outsize`).
        return_indices: If True, also return the argmax of each window: an
            integer array ``(n, c, o_1, ..., o_N)`` holding the row-major
            position of the maximum inside its window.

    Returns:
        Variable, or ``(Variable, indexes)`` with ``return_indices``: the
        pooled array ``(n, c, o_1, ..., o_N)``.

    .. admonition:: Example

        >>> x = np.arange(8, dtype=np.float32).reshape(1, 1, 8)
        >>> F.max_pooling_nd(x, 3, stride=2).array
        array([[[2., 4., 6., 7.]]], dtype=float32)
    """
    ndim = pooling_nd.spatial_ndim(x, 'max_pooling_nd')
    return _apply(x, ndim, ksize, stride, pad, cover_all, return_indices)


def max_pooling_1d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0,
                   cover_all: bool = True, return_indices: bool = False
                   ) -> Variable | tuple[Variable, Any]:
    """1-dimensional spatial max pooling of ``(n, c, w)``; see :func:`max_pooling_nd`.

    Raises:
        ValueError: If ``x`` does not have exactly one spatial axis.
    """
    pooling_nd.check_spatial_ndim(x, 1, 'max_pooling_1d')
    return _apply(x, 1, ksize, stride, pad, cover_all, return_indices)


def max_pooling_3d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0,
                   cover_all: bool = True, return_indices: bool = False
                   ) -> Variable | tuple[Variable, Any]:
    """3-dimensional spatial max pooling of ``(n, c, d, h, w)``; see :func:`max_pooling_nd`.

    Raises:
        ValueError: If ``x`` does not have exactly three spatial axes.
    """
    pooling_nd.check_spatial_ndim(x, 3, 'max_pooling_3d')
    return _apply(x, 3, ksize, stride, pad, cover_all, return_indices)
