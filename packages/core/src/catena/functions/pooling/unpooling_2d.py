"""``unpooling_2d``: the inverse of 2-d pooling."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.pooling import _window, pooling_2d, pooling_nd
from catena.functions.pooling.unpooling_nd import check_outsize, unpooled_size
from catena.utils import type_check
from catena.variable import Variable


class Unpooling2D(pooling_2d.Pooling2D):
    """Unpooling over ``(n, c, h, w)``: each pixel is copied to every pixel of its window.

    ``outh, outw`` hold the output size (set in forward when not given).
    """

    def __init__(self, ksize: Any, stride: Any = None, pad: Any = 0, outsize: Any = None,
                 cover_all: bool = True) -> None:
        super().__init__(ksize, stride, pad, cover_all)
        size = None if outsize is None else pooling_nd.as_window_tuple(outsize, 2, 'outsize', 0)
        self.outh: int | None = None if size is None else size[0]
        self.outw: int | None = None if size is None else size[1]

    @property
    def outsize(self) -> tuple[int, int] | None:
        if self.outh is None or self.outw is None:
            return None
        return self.outh, self.outw

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim == 4)
        check_outsize(x_type, self.ksize, self.stride, self.pad, self.outsize, self.cover_all)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        if self.outh is None or self.outw is None:
            self.outh, self.outw = unpooled_size(x.shape[2:], self.ksize, self.stride, self.pad,
                                                 self.cover_all)
        return _window.spread(x, self.ksize, self.stride, self.pad, (self.outh, self.outw)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return Unpooling2DGrad(self).apply(grad_outputs)


class Unpooling2DGrad(FunctionNode):
    """The gradient of :class:`Unpooling2D`: the sum of ``gy`` over each window."""

    def __init__(self, unpooling2d: Unpooling2D) -> None:
        self.kh, self.kw = unpooling2d.kh, unpooling2d.kw
        self.sy, self.sx = unpooling2d.sy, unpooling2d.sx
        self.ph, self.pw = unpooling2d.ph, unpooling2d.pw
        self.outh, self.outw = unpooling2d.outh, unpooling2d.outw
        self.cover_all = unpooling2d.cover_all
        self._in_shape = unpooling2d._in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        return _window.window_sum(gy, (self.kh, self.kw), (self.sy, self.sx),
                                  (self.ph, self.pw), self._in_shape[2:]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return Unpooling2D((self.kh, self.kw), (self.sy, self.sx), (self.ph, self.pw),
                           (self.outh, self.outw), self.cover_all).apply(grad_outputs)


def unpooling_2d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, outsize: Any = None,
                 cover_all: bool = True) -> Variable:
    """Inverse operation of 2-d pooling.

    Every input pixel is copied to each pixel of the window that pooling
    with the same arguments would have read it from; where windows overlap
    (stride below ksize) the copies add up.

    Args:
        x: A Variable or array ``(n, c, h, w)``.
        ksize: The window size: an int ``k`` (for ``(k, k)``) or a pair
            ``(kh, kw)``.
        stride: The stride (int or pair); ``None`` uses ``ksize``.
        pad: The padding (int or pair) that pooling added, cropped here.
        outsize: The output size ``(out_h, out_w)``; ``None`` chooses the
            smallest one (:func:`catena.utils.conv.get_deconv_outsize`).
            Pooling an image of this size with the same arguments must give
            ``(h, w)``.
        cover_all: Whether the matching pooling used ``cover_all``.

    Returns:
        Variable: The unpooled array ``(n, c, out_h, out_w)``.

    .. admonition:: Example

        >>> x = np.array([[[[1.0, 2.0], [3.0, 4.0]]]], dtype=np.float32)
        >>> F.unpooling_2d(x, 2, cover_all=False).array[0, 0]
        array([[1., 1., 2., 2.],
               [1., 1., 2., 2.],
               [3., 3., 4., 4.],
               [3., 3., 4., 4.]], dtype=float32)
    """
    return Unpooling2D(ksize, stride, pad, outsize, cover_all).apply((x,))[0]
