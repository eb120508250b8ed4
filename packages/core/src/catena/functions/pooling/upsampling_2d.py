"""``upsampling_2d``: unpooling to the positions that max pooling took its maxima from."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.pooling import _window, pooling_2d, pooling_nd
from catena.functions.pooling.unpooling_nd import check_outsize, unpooled_size
from catena.utils import type_check
from catena.variable import Variable


class Upsampling2D(pooling_2d.Pooling2D):
    """Places each pixel of ``(n, c, h, w)`` at the tap ``indexes`` names in its window.

    Args:
        indexes: The taps ``i * kw + j``, shaped like the input, e.g. from
            ``max_pooling_2d(..., return_indices=True)``.
        ksize, stride, pad, cover_all: The pooling's window arguments.
        outsize: The output size ``(out_h, out_w)`` (None: the smallest).
    """

    def __init__(self, indexes: Any, ksize: Any, stride: Any = None, pad: Any = 0,
                 outsize: Any = None, cover_all: bool = True) -> None:
        super().__init__(ksize, stride, pad, cover_all)
        self.indexes = indexes
        size = None if outsize is None else pooling_nd.as_window_tuple(outsize, 2, 'outsize', 1)
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
        shape = tuple(type_check.eval(x_type.shape))
        index_shape = tuple(getattr(self.indexes, 'shape', ()))
        kind = getattr(getattr(self.indexes, 'dtype', None), 'kind', None)
        if index_shape != shape or kind not in ('i', 'u'):
            raise type_check.InvalidType(
                'indexes is an integer array of the shape of x',
                f'x.shape = {shape}, indexes: shape {index_shape}, dtype '
                f'{getattr(self.indexes, "dtype", type(self.indexes).__name__)}')
        check_outsize(x_type, self.ksize, self.stride, self.pad, self.outsize, self.cover_all)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        if self.outh is None or self.outw is None:
            self.outh, self.outw = unpooled_size(x.shape[2:], self.ksize, self.stride, self.pad,
                                                 self.cover_all)
        return _window.scatter(x, self.indexes, self.ksize, self.stride, self.pad,
                               (self.outh, self.outw)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return Upsampling2DGrad(self).apply(grad_outputs)


class Upsampling2DGrad(FunctionNode):
    """The gradient of :class:`Upsampling2D`: ``gy`` read at the taps of ``indexes``."""

    def __init__(self, upsampling2d: Upsampling2D) -> None:
        self.upsampling2d = upsampling2d
        self.kh, self.kw = upsampling2d.kh, upsampling2d.kw
        self.sy, self.sx = upsampling2d.sy, upsampling2d.sx
        self.ph, self.pw = upsampling2d.ph, upsampling2d.pw
        self.cover_all = upsampling2d.cover_all
        self.indexes = upsampling2d.indexes

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        return _window.gather(gy, self.indexes, (self.kh, self.kw), (self.sy, self.sx),
                              (self.ph, self.pw)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        up = self.upsampling2d
        return Upsampling2D(self.indexes, up.ksize, up.stride, up.pad, up.outsize,
                            self.cover_all).apply(grad_outputs)


def upsampling_2d(x: Any, indexes: Any, ksize: Any, stride: Any = None, pad: Any = 0,
                  outsize: Any = None, cover_all: bool = True) -> Variable:
    """Upsampling using pooling indices.

    The inverse of :func:`~catena.functions.max_pooling_2d` in the sense of
    SegNet: each input pixel is written to the position in its window that
    the max pooling took its maximum from; every other output pixel is 0.
    Where windows overlap, values landing on one pixel add up.

    Args:
        x: A Variable or array ``(n, c, h, w)``.
        indexes: An integer array of ``x``'s shape: the tap ``i * kw + j``
            of each window, as ``max_pooling_2d(..., return_indices=True)``
            returns it.
        ksize: The window size: an int ``k`` (for ``(k, k)``) or a pair.
        stride: The stride (int or pair); ``None`` uses ``ksize``.
        pad: The padding (int or pair).
        outsize: The output size ``(out_h, out_w)``; ``None`` chooses the
            smallest one (:func:`catena.utils.conv.get_deconv_outsize`).
            Pooling an image of this size must give ``(h, w)``.
        cover_all: Whether the max pooling used ``cover_all``.

    Returns:
        Variable: The upsampled array ``(n, c, out_h, out_w)``.

    .. admonition:: Example

        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> y, indexes = F.max_pooling_2d(x, 2, return_indices=True)
        >>> F.upsampling_2d(y, indexes, 2, outsize=(4, 4)).array[0, 0]
        array([[ 0.,  0.,  0.,  0.],
               [ 0.,  5.,  0.,  7.],
               [ 0.,  0.,  0.,  0.],
               [ 0., 13.,  0., 15.]], dtype=float32)
    """
    return Upsampling2D(indexes, ksize, stride, pad, outsize, cover_all).apply((x,))[0]
