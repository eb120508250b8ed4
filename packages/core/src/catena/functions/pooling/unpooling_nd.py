"""``unpooling_nd`` (and ``unpooling_1d`` / ``unpooling_3d``): the inverse of n-d pooling."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.pooling import _window, pooling_nd
from catena.utils import conv, type_check
from catena.variable import Variable


def unpooled_size(dims: tuple[int, ...], ksize: tuple[int, ...], stride: tuple[int, ...],
                  pad: tuple[int, ...], cover_all: bool) -> tuple[int, ...]:
    """The default output size of unpooling (:func:`catena.utils.conv.get_deconv_outsize`)."""
    return tuple(conv.get_deconv_outsize(size, k, s, p, cover_all)
                 for size, k, s, p in zip(dims, ksize, stride, pad))


def check_outsize(x_type: Any, ksize: tuple[int, ...], stride: tuple[int, ...],
                  pad: tuple[int, ...], outsize: tuple[int, ...] | None, cover_all: bool) -> None:
    """Type-checks that pooling an image of ``outsize`` gives ``x``'s spatial shape.

    Without ``outsize``, checks that the default output size is not negative
    (an empty output is allowed, as in Chainer: the padding may crop it all).

    Raises:
        InvalidType: With the shapes and window arguments.
    """
    shape = tuple(type_check.eval(x_type.shape))
    dims = shape[2:]
    args = f'ksize = {ksize}, stride = {stride}, pad = {pad}, cover_all = {cover_all}'
    if outsize is None:
        default = unpooled_size(dims, ksize, stride, pad, cover_all)
        if any(o < 0 for o in default):
            raise type_check.InvalidType(
                'a non-negative output size', f'x.shape = {shape}, {args}: output size {default}')
        return
    pooled = _window.outsize(outsize, ksize, stride, pad, cover_all)
    if pooled != dims:
        raise type_check.InvalidType(
            f'x.shape[2:] == {pooled} (the pooled size of outsize = {outsize})',
            f'x.shape = {shape}, {args}')


class UnpoolingND(pooling_nd._PoolingND):
    """Unpooling over ``(n, c, *dims)``: each pixel is copied to every pixel of its window.

    Where windows overlap (stride below ksize) the copies add up.
    """

    def __init__(self, ndim: int, ksize: Any, stride: Any = None, pad: Any = 0,
                 outsize: Any = None, cover_all: bool = True) -> None:
        super().__init__(ndim, ksize, stride, pad, cover_all)
        # An empty outsize is allowed: the padding may crop the whole output.
        self.outs = None if outsize is None else pooling_nd.as_window_tuple(
            outsize, ndim, 'outsize', 0)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim == 2 + self.ndim)
        check_outsize(x_type, self.ksize, self.stride, self.pad, self.outs, self.cover_all)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        if self.outs is None:
            self.outs = unpooled_size(x.shape[2:], self.ksize, self.stride, self.pad,
                                      self.cover_all)
        return _window.spread(x, self.ksize, self.stride, self.pad, self.outs),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return UnpoolingNDGrad(self).apply(grad_outputs)


class UnpoolingNDGrad(FunctionNode):
    """The gradient of :class:`UnpoolingND`: the sum of ``gy`` over each window."""

    def __init__(self, unpoolingnd: UnpoolingND) -> None:
        self.ndim = unpoolingnd.ndim
        self.ksize = unpoolingnd.ksize
        self.stride = unpoolingnd.stride
        self.pad = unpoolingnd.pad
        self.outs = unpoolingnd.outs
        self.cover_all = unpoolingnd.cover_all
        self._in_shape = unpoolingnd._in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        return _window.window_sum(gy, self.ksize, self.stride, self.pad, self._in_shape[2:]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return UnpoolingND(self.ndim, self.ksize, self.stride, self.pad, self.outs,
                           self.cover_all).apply(grad_outputs)


def _apply(x: Any, ndim: int, ksize: Any, stride: Any, pad: Any, outsize: Any,
           cover_all: bool) -> Variable:
    return UnpoolingND(ndim, ksize, stride, pad, outsize, cover_all).apply((x,))[0]


def unpooling_nd(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, outsize: Any = None,
                 cover_all: bool = True) -> Variable:
    """Inverse operation of N-dimensional spatial pooling.

    Every input pixel is copied to each pixel of the window that pooling
    with the same arguments would have read it from; where windows overlap
    the copies add up. It is the transpose of sum pooling.

    Args:
        x: A Variable or array ``(n, c, d_1, ..., d_N)``.
        ksize: The window size: an int (the same on every axis) or a tuple
            of ``N`` ints.
        stride: The stride (int or tuple); ``None`` uses ``ksize``.
        pad: The padding (int or tuple) that pooling added, cropped here.
        outsize: The output spatial size ``(o_1, ..., o_N)``; ``None``
            chooses the smallest one
            (:func:`catena.utils.conv.get_deconv_outsize`). Pooling an image
            of this size with the same arguments must give ``x``'s size.
        cover_all: Whether the matching pooling used ``cover_all``.

    Returns:
        Variable: The unpooled array ``(n, c, o_1, ..., o_N)``.

    .. admonition:: Example

        >>> x = np.array([[[1.0, 2.0]]], dtype=np.float32)
        >>> F.unpooling_nd(x, 2, cover_all=False).array
        array([[[1., 1., 2., 2.]]], dtype=float32)
    """
    ndim = pooling_nd.spatial_ndim(x, 'unpooling_nd')
    return _apply(x, ndim, ksize, stride, pad, outsize, cover_all)


def unpooling_1d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, outsize: Any = None,
                 cover_all: bool = True) -> Variable:
    """Inverse of 1-dimensional pooling on ``(n, c, w)``; see :func:`unpooling_nd`.

    Raises:
        ValueError: If ``x`` does not have exactly one spatial axis.
    """
    pooling_nd.check_spatial_ndim(x, 1, 'unpooling_1d')
    return _apply(x, 1, ksize, stride, pad, outsize, cover_all)


def unpooling_3d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, outsize: Any = None,
                 cover_all: bool = True) -> Variable:
    """Inverse of 3-dimensional pooling on ``(n, c, d, h, w)``; see :func:`unpooling_nd`.

    Raises:
        ValueError: If ``x`` does not have exactly three spatial axes.
    """
    pooling_nd.check_spatial_ndim(x, 3, 'unpooling_3d')
    return _apply(x, 3, ksize, stride, pad, outsize, cover_all)
