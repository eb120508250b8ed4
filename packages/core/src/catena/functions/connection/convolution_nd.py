"""``convolution_nd`` (and ``convolution_1d`` / ``convolution_3d``): n-d convolution."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.connection import (
    _conv_core,
    deconvolution_nd,  # a module: the two import each other
)
from catena.functions.math.sum import sum as _sum
from catena.variable import Variable


class ConvolutionND(FunctionNode):
    """N-d convolution of ``x`` ``(n, c, *dims)`` with ``W`` ``(c_out, c / groups, *ksize)``.

    Args:
        ndim: The number of spatial axes.
        stride, pad, dilate: An int or ``ndim`` ints each.
        cover_all: Whether extra windows cover the far border.
        groups: The number of channel groups.
    """

    def __init__(self, ndim: int, stride: Any = 1, pad: Any = 0, cover_all: bool = False,
                 dilate: Any = 1, groups: int = 1) -> None:
        self.ndim = ndim
        self.stride = _conv_core.as_params(stride, ndim, 'stride', 1)
        self.pad = _conv_core.as_params(pad, ndim, 'pad', 0)
        self.cover_all = bool(cover_all)
        self.dilate = _conv_core.as_params(dilate, ndim, 'dilate', 1)
        self.groups = _conv_core.as_groups(groups)

    def check_type_forward(self, in_types: Any) -> None:
        _conv_core.check_types(in_types, self.ndim, self.groups, transposed=False)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        outs = _conv_core.conv_outsizes(f'convolution_{self.ndim}d', x.shape, W.shape,
                                        self.stride, self.pad, self.cover_all, self.dilate)
        return _conv_core.convolution(x, W, b, self.stride, self.pad, self.cover_all,
                                      self.dilate, self.groups, outs),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        ret: list[Any] = []
        if 0 in indexes:
            ret.append(deconvolution_nd.deconvolution_nd(
                gy, W, stride=self.stride, pad=self.pad, outsize=x.shape[2:],
                dilate=self.dilate, groups=self.groups))
        if 1 in indexes:
            ret.append(_conv_core.as_weight_dtype(
                ConvolutionNDGradW(self, W.shape).apply((x, gy))[0], W.dtype))
        if 2 in indexes:
            ret.append(_sum(gy, axis=(0,) + tuple(range(2, gy.ndim))))
        return tuple(ret)


class ConvolutionNDGradW(FunctionNode):
    """The weight gradient of an n-d convolution: inputs ``(x, gy)``, output ``gW``.

    Args:
        conv_nd: The node whose ``ndim, stride, pad, cover_all, dilate,
            groups`` it takes (a :class:`ConvolutionND`, or a deconvolution
            whose input and output swap roles).
        W_shape: The shape of the weight, ``(c_out, c_in / groups, *ksize)``.
    """

    def __init__(self, conv_nd: Any, W_shape: tuple[int, ...]) -> None:
        self.ndim = conv_nd.ndim
        self.ksize = tuple(W_shape[2:])
        self.stride = conv_nd.stride
        self.pad = conv_nd.pad
        self.cover_all = conv_nd.cover_all
        self.dilate = conv_nd.dilate
        self.groups = conv_nd.groups

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return _conv_core.convolution_grad_w(x, gy, self.ksize, self.stride, self.pad,
                                             self.cover_all, self.dilate, self.groups),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, gy = self.get_retained_inputs()
        ggW, = grad_outputs
        ret: list[Any] = []
        if 0 in indexes:
            ret.append(deconvolution_nd.deconvolution_nd(
                gy, ggW, stride=self.stride, pad=self.pad, outsize=x.shape[2:],
                dilate=self.dilate, groups=self.groups))
        if 1 in indexes:
            ret.append(convolution_nd(x, ggW, stride=self.stride, pad=self.pad,
                                      cover_all=self.cover_all, dilate=self.dilate,
                                      groups=self.groups))
        return tuple(ret)


def convolution_nd(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                   cover_all: bool = False, dilate: Any = 1, groups: int = 1) -> Variable:
    """N-dimensional convolution.

    The n-d generalization of :func:`~catena.functions.convolution_2d`: the
    number of spatial axes is ``x.ndim - 2``, and ``stride``, ``pad`` and
    ``dilate`` take an int or one value per spatial axis. Along each axis the
    output size is ``(d + 2 p - ((k - 1) dil + 1)) // s + 1`` (rounded up with
    ``cover_all``).

    Args:
        x: Input of shape ``(n, c_in, d_1, ..., d_N)``.
        W: Filters of shape ``(c_out, c_in / groups, k_1, ..., k_N)``; its float dtype
            may differ from ``x``'s (its gradient keeps it).
        b: Bias of shape ``(c_out,)`` in ``x``'s dtype, or None.
        stride: The stride, an int or N ints.
        pad: The zero padding, an int or N ints.
        cover_all: Add windows so that every input element is covered.
        dilate: The dilation, an int or N ints.
        groups: The number of channel groups.

    Returns:
        Variable: Output of shape ``(n, c_out, o_1, ..., o_N)`` in ``x``'s dtype.

    Raises:
        InvalidType: If a dtype is not floating point, ``b``'s differs from
            ``x``'s, or the ranks or channel counts do not match.
        ValueError: If ``x`` has no spatial axis, or the dilated kernel is
            larger than the padded input.

    .. admonition:: Example

        >>> x = np.arange(5, dtype=np.float32).reshape(1, 1, 5)
        >>> W = np.ones((1, 1, 2), dtype=np.float32)
        >>> F.convolution_nd(x, W).array
        array([[[1., 3., 5., 7.]]], dtype=float32)
    """
    ndim = _arguments.ndim('convolution_nd', 'x', x)
    if ndim < 3:
        raise ValueError('convolution_nd takes x of shape (n, c, d_1, ..., d_N) with N >= 1; '
                         f'got x.shape={x.shape}')
    node = ConvolutionND(ndim - 2, stride, pad, cover_all, dilate, groups)
    args = (x, W) if b is None else (x, W, b)
    return node.apply(args)[0]


def convolution_1d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                   cover_all: bool = False, dilate: Any = 1, groups: int = 1) -> Variable:
    """1-d convolution: :func:`convolution_nd` for ``x`` of shape ``(n, c, w)``.

    Raises:
        ValueError: If ``x`` is not 3-dimensional.
    """
    ndim = _arguments.ndim('convolution_1d', 'x', x)
    if ndim != 3:
        raise ValueError(f'convolution_1d takes x of shape (n, c, w); got x.shape={x.shape}')
    return convolution_nd(x, W, b, stride, pad, cover_all, dilate, groups)


def convolution_3d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                   cover_all: bool = False, dilate: Any = 1, groups: int = 1) -> Variable:
    """3-d convolution: :func:`convolution_nd` for ``x`` of shape ``(n, c, d, h, w)``.

    Raises:
        ValueError: If ``x`` is not 5-dimensional.
    """
    ndim = _arguments.ndim('convolution_3d', 'x', x)
    if ndim != 5:
        raise ValueError(
            f'convolution_3d takes x of shape (n, c, d, h, w); got x.shape={x.shape}')
    return convolution_nd(x, W, b, stride, pad, cover_all, dilate, groups)
