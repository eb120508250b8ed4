"""``average_pooling_nd`` (and ``average_pooling_1d`` / ``_3d``): n-dimensional average pooling."""

from __future__ import annotations

import math
from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.pooling import _window, pooling_nd
from catena.variable import Variable


def _check_pad_value(pad_value: Any) -> None:
    if pad_value is not None and (isinstance(pad_value, bool) or pad_value != 0):
        raise ValueError(f'pad_value must be 0 or None; got {pad_value!r}')


class AveragePoolingND(pooling_nd._PoolingND):
    """Average pooling over the spatial axes of ``(n, c, *dims)``.

    With ``pad_value=0`` the padding counts as zeros and every window is
    divided by its full size; with ``pad_value=None`` each window is divided
    by the number of its pixels inside the input.
    """

    def __init__(self, ndim: int, ksize: Any, stride: Any = None, pad: Any = 0,
                 cover_all: bool = False, pad_value: Any = 0) -> None:
        _check_pad_value(pad_value)
        super().__init__(ndim, ksize, stride, pad, cover_all)
        self.pad_value = pad_value

    def _scale(self, xp: Any, dims: tuple[int, ...], outs: tuple[int, ...], dtype: Any) -> Any:
        """The factor of each window: ``1 / size`` (a scalar) or ``1 / count`` (an array)."""
        if self.pad_value is None:
            counts = _window.window_counts(xp, dims, self.ksize, self.stride, self.pad, outs,
                                           dtype)
            return xp.reciprocal(counts)
        return dtype.type(1.0 / math.prod(self.ksize))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        self._in_dtype = x.dtype
        dims = x.shape[2:]
        outs = _window.outsize(dims, self.ksize, self.stride, self.pad, self.cover_all)
        y = _window.window_sum(x, self.ksize, self.stride, self.pad, outs)
        self.scale = self._scale(backend.get_array_module(x), dims, outs, x.dtype)
        y *= self.scale
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return AveragePoolingNDGrad(self).apply(grad_outputs)


class AveragePoolingNDGrad(FunctionNode):
    """The gradient of :class:`AveragePoolingND`: each scaled ``gy`` spread over its window."""

    def __init__(self, apoolnd: AveragePoolingND) -> None:
        self.ndim = apoolnd.ndim
        self.ksize = apoolnd.ksize
        self.stride = apoolnd.stride
        self.pad = apoolnd.pad
        self.cover_all = apoolnd.cover_all
        self.pad_value = apoolnd.pad_value
        self.scale = apoolnd.scale
        self._in_shape = apoolnd._in_shape
        self._in_dtype = apoolnd._in_dtype

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        return _window.spread(gy * self.scale, self.ksize, self.stride, self.pad,
                              self._in_shape[2:]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return AveragePoolingND(self.ndim, self.ksize, self.stride, self.pad, self.cover_all,
                                self.pad_value).apply(grad_outputs)


def _apply(x: Any, ndim: int, ksize: Any, stride: Any, pad: Any, pad_value: Any) -> Variable:
    return AveragePoolingND(ndim, ksize, stride, pad, False, pad_value).apply((x,))[0]


def average_pooling_nd(x: Any, ksize: Any, stride: Any = None, pad: Any = 0,
                       pad_value: Any = 0) -> Variable:
    """N-dimensional spatial average pooling.

    Each output pixel is the mean of a ``ksize`` window of the input padded
    with ``pad`` pixels at both ends of each spatial axis.

    Args:
        x: A Variable or array ``(n, c, d_1, ..., d_N)``.
        ksize: The window size: an int (the same on every axis) or a tuple
            of ``N`` ints.
        stride: The stride (int or tuple); ``None`` uses ``ksize``.
        pad: The padding (int or tuple).
        pad_value: ``0`` (the padding counts as zeros and the divisor is
            always the window size, which biases border windows towards
            zero) or ``None`` (the padding is left out: each window is
            divided by the number of its pixels inside the input).

    Returns:
        Variable: The pooled array ``(n, c, o_1, ..., o_N)`` with
        ``o_i = (d_i + 2 * p_i - k_i) // s_i + 1``.

    Raises:
        ValueError: If ``pad_value`` is neither 0 nor None.

    .. admonition:: Example

        >>> x = np.arange(4, dtype=np.float32).reshape(1, 1, 4)
        >>> F.average_pooling_nd(x, 2, pad=1).array
        array([[[0. , 1.5, 1.5]]], dtype=float32)
        >>> F.average_pooling_nd(x, 2, pad=1, pad_value=None).array
        array([[[0. , 1.5, 3. ]]], dtype=float32)
    """
    ndim = pooling_nd.spatial_ndim(x, 'average_pooling_nd')
    return _apply(x, ndim, ksize, stride, pad, pad_value)


def average_pooling_1d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0,
                       pad_value: Any = 0) -> Variable:
    """1-dimensional spatial average pooling of ``(n, c, w)``; see :func:`average_pooling_nd`.

    Raises:
        ValueError: If ``x`` does not have exactly one spatial axis.
    """
    pooling_nd.check_spatial_ndim(x, 1, 'average_pooling_1d')
    return _apply(x, 1, ksize, stride, pad, pad_value)


def average_pooling_3d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0,
                       pad_value: Any = 0) -> Variable:
    """3-dimensional spatial average pooling of ``(n, c, d, h, w)``.

    See :func:`average_pooling_nd`.

    Raises:
        ValueError: If ``x`` does not have exactly three spatial axes.
    """
    pooling_nd.check_spatial_ndim(x, 3, 'average_pooling_3d')
    return _apply(x, 3, ksize, stride, pad, pad_value)
