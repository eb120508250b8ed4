"""``average_pooling_2d``: spatial average pooling of images."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.pooling import _window, pooling_2d
from catena.variable import Variable


class AveragePooling2D(pooling_2d.Pooling2D):
    """Average pooling over ``(n, c, h, w)``; the padding counts as zeros."""

    def __init__(self, ksize: Any, stride: Any = None, pad: Any = 0,
                 cover_all: bool = False) -> None:
        super().__init__(ksize, stride, pad, cover_all)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        self._in_dtype = x.dtype
        outs = _window.outsize(x.shape[2:], self.ksize, self.stride, self.pad, self.cover_all)
        y = _window.window_sum(x, self.ksize, self.stride, self.pad, outs)
        y *= x.dtype.type(1.0 / (self.kh * self.kw))
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return AveragePooling2DGrad(self).apply(grad_outputs)


class AveragePooling2DGrad(FunctionNode):
    """The gradient of :class:`AveragePooling2D`: ``gy / (kh * kw)`` spread over each window."""

    def __init__(self, apool2d: AveragePooling2D) -> None:
        self.kh, self.kw = apool2d.kh, apool2d.kw
        self.sy, self.sx = apool2d.sy, apool2d.sx
        self.ph, self.pw = apool2d.ph, apool2d.pw
        self.cover_all = apool2d.cover_all
        self._in_shape = apool2d._in_shape
        self._in_dtype = apool2d._in_dtype

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        gx = _window.spread(gy, (self.kh, self.kw), (self.sy, self.sx), (self.ph, self.pw),
                            self._in_shape[2:])
        gx *= gy.dtype.type(1.0 / (self.kh * self.kw))
        return gx,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return AveragePooling2D((self.kh, self.kw), (self.sy, self.sx), (self.ph, self.pw),
                                self.cover_all).apply(grad_outputs)


def average_pooling_2d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0) -> Variable:
    """Spatial average pooling.

    Each output pixel is the mean of a ``ksize`` window of the input padded
    with ``pad`` zeros on each side; the divisor is always ``kh * kw``, so
    windows that overlap the padding are biased towards zero.

    Args:
        x: A Variable or array ``(n, c, h, w)``.
        ksize: The window size: an int ``k`` (for ``(k, k)``) or a pair
            ``(kh, kw)``.
        stride: The stride (int or pair); ``None`` uses ``ksize``.
        pad: The padding (int or pair).

    Returns:
        Variable: The pooled array ``(n, c, out_h, out_w)`` with
        ``out_h = (h + 2 * ph - kh) // sy + 1`` (likewise ``out_w``).

    .. admonition:: Example

        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> F.average_pooling_2d(x, 2).array
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]], dtype=float32)
    """
    return AveragePooling2D(ksize, stride, pad, False).apply((x,))[0]
