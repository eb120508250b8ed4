"""``deconvolution_nd`` and its 1-d / 3-d wrappers: n-d transposed convolution."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.connection import (
    _conv_core,
    convolution_nd,  # a module: the two import each other
)
from catena.functions.math.sum import sum as _sum
from catena.variable import Variable


class DeconvolutionND(FunctionNode):
    """N-d transposed convolution.

    The inputs are ``x`` ``(n, c_in, *dims)``, ``W`` ``(c_in, c_out / groups,
    *ksize)`` and optionally ``b`` ``(c_out,)``.

    Args:
        ndim: The number of spatial axes.
        stride, pad, dilate: An int or ``ndim`` ints each.
        outsize: The output's spatial shape, or None for the smallest one
            consistent with the input.
        groups: The number of channel groups.

    Attributes:
        cover_all: Set by forward: whether the matching convolution, which
            maps the output back to the input's size, needs ``cover_all``.
    """

    cover_all = False

    def __init__(self, ndim: int, stride: Any = 1, pad: Any = 0, outsize: Any = None,
                 dilate: Any = 1, groups: int = 1) -> None:
        self.ndim = ndim
        self.stride = _conv_core.as_params(stride, ndim, 'stride', 1)
        self.pad = _conv_core.as_params(pad, ndim, 'pad', 0)
        self.outs = None if outsize is None else \
            _conv_core.as_params(outsize, ndim, 'outsize', 1)
        self.dilate = _conv_core.as_params(dilate, ndim, 'dilate', 1)
        self.groups = _conv_core.as_groups(groups)

    def check_type_forward(self, in_types: Any) -> None:
        _conv_core.check_types(in_types, self.ndim, self.groups, transposed=True)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        outs, self.cover_all = _conv_core.deconv_outsizes(
            f'deconvolution_{self.ndim}d', x.shape, W.shape, self.stride, self.pad, self.outs,
            self.dilate)
        return _conv_core.deconvolution(x, W, b, self.stride, self.pad, self.dilate,
                                        self.groups, outs),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        ret: list[Any] = []
        if 0 in indexes:
            ret.append(convolution_nd.convolution_nd(
                gy, W, stride=self.stride, pad=self.pad, cover_all=self.cover_all,
                dilate=self.dilate, groups=self.groups))
        if 1 in indexes:
            ret.append(_conv_core.as_weight_dtype(
                convolution_nd.ConvolutionNDGradW(self, W.shape).apply((gy, x))[0], W.dtype))
        if 2 in indexes:
            ret.append(_sum(gy, axis=(0,) + tuple(range(2, gy.ndim))))
        return tuple(ret)


def deconvolution_nd(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                     outsize: Any = None, dilate: Any = 1, groups: int = 1) -> Variable:
    """N-dimensional deconvolution (transposed convolution).

    The n-d generalization of :func:`~catena.functions.deconvolution_2d`,
    the transpose of :func:`~catena.functions.convolution_nd` with the same
    parameters. Without ``outsize`` the output size along each axis is
    ``s (d - 1) + (k - 1) dil + 1 - 2 p``.

    Args:
        x: Input of shape ``(n, c_in, d_1, ..., d_N)``.
        W: Filters of shape ``(c_in, c_out / groups, k_1, ..., k_N)``; its float dtype
            may differ from ``x``'s (its gradient keeps it).
        b: Bias of shape ``(c_out,)`` in ``x``'s dtype, or None.
        stride: The stride, an int or N ints.
        pad: The padding cropped from the output, an int or N ints.
        outsize: The output's spatial shape (N ints), or None.
        dilate: The dilation, an int or N ints.
        groups: The number of channel groups.

    Returns:
        Variable: Output of shape ``(n, c_out, o_1, ..., o_N)`` in ``x``'s dtype.

    Raises:
        InvalidType: If a dtype is not floating point, ``b``'s differs from
            ``x``'s, or the ranks or channel counts do not match.
        ValueError: If ``x`` has no spatial axis, or ``outsize`` is not
            consistent with the input size.

    .. admonition:: Example

        >>> x = np.array([[[1.0, 2.0]]], dtype=np.float32)
        >>> W = np.ones((1, 1, 2), dtype=np.float32)
        >>> F.deconvolution_nd(x, W).array
        array([[[1., 3., 2.]]], dtype=float32)
    """
    ndim = _arguments.ndim('deconvolution_nd', 'x', x)
    if ndim < 3:
        raise ValueError('deconvolution_nd takes x of shape (n, c, d_1, ..., d_N) with N >= 1; '
                         f'got x.shape={x.shape}')
    node = DeconvolutionND(ndim - 2, stride, pad, outsize, dilate, groups)
    args = (x, W) if b is None else (x, W, b)
    return node.apply(args)[0]


def deconvolution_1d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                     outsize: Any = None, dilate: Any = 1, groups: int = 1) -> Variable:
    """1-d deconvolution: :func:`deconvolution_nd` for ``x`` of shape ``(n, c, w)``.

    Raises:
        ValueError: If ``x`` is not 3-dimensional.
    """
    ndim = _arguments.ndim('deconvolution_1d', 'x', x)
    if ndim != 3:
        raise ValueError(f'deconvolution_1d takes x of shape (n, c, w); got x.shape={x.shape}')
    return deconvolution_nd(x, W, b, stride, pad, outsize, dilate, groups)


def deconvolution_3d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                     outsize: Any = None, dilate: Any = 1, groups: int = 1) -> Variable:
    """3-d deconvolution: :func:`deconvolution_nd` for ``x`` of shape ``(n, c, d, h, w)``.

    Raises:
        ValueError: If ``x`` is not 5-dimensional.
    """
    ndim = _arguments.ndim('deconvolution_3d', 'x', x)
    if ndim != 5:
        raise ValueError(
            f'deconvolution_3d takes x of shape (n, c, d, h, w); got x.shape={x.shape}')
    return deconvolution_nd(x, W, b, stride, pad, outsize, dilate, groups)
