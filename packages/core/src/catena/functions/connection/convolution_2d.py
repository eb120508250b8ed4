"""``convolution_2d``: two-dimensional convolution (cross-correlation) of images."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.connection import (
    _conv_core,
    deconvolution_2d,  # a module: the two import each other
)
from catena.functions.math.sum import sum as _sum
from catena.variable import Variable


class Convolution2DFunction(FunctionNode):
    """2-d convolution of ``x`` ``(n, c, h, w)`` with ``W`` ``(c_out, c / groups, kh, kw)``.

    Attributes:
        sy, sx: The strides.
        ph, pw: The paddings.
        cover_all: Whether extra windows cover the bottom/right border.
        dy, dx: The dilations.
        groups: The number of channel groups.
    """

    def __init__(self, stride: Any = 1, pad: Any = 0, cover_all: bool = False, *,
                 dilate: Any = 1, groups: int = 1) -> None:
        self.sy, self.sx = _conv_core.as_params(stride, 2, 'stride', 1)
        self.ph, self.pw = _conv_core.as_params(pad, 2, 'pad', 0)
        self.cover_all = bool(cover_all)
        self.dy, self.dx = _conv_core.as_params(dilate, 2, 'dilate', 1)
        self.groups = _conv_core.as_groups(groups)

    def check_type_forward(self, in_types: Any) -> None:
        _conv_core.check_types(in_types, 2, self.groups, transposed=False)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        stride, pad, dilate = (self.sy, self.sx), (self.ph, self.pw), (self.dy, self.dx)
        outs = _conv_core.conv_outsizes('convolution_2d', x.shape, W.shape, stride, pad,
                                        self.cover_all, dilate)
        return _conv_core.convolution(x, W, b, stride, pad, self.cover_all, dilate,
                                      self.groups, outs),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        ret: list[Any] = []
        if 0 in indexes:
            ret.append(deconvolution_2d.deconvolution_2d(
                gy, W, stride=(self.sy, self.sx), pad=(self.ph, self.pw),
                outsize=x.shape[2:], dilate=(self.dy, self.dx), groups=self.groups))
        if 1 in indexes:
            ret.append(_conv_core.as_weight_dtype(
                Convolution2DGradW(self, W.shape).apply((x, gy))[0], W.dtype))
        if 2 in indexes:
            ret.append(_sum(gy, axis=(0, 2, 3)))
        return tuple(ret)


class Convolution2DGradW(FunctionNode):
    """The weight gradient of a 2-d convolution: inputs ``(x, gy)``, output ``gW``.

    Args:
        conv2d: The node whose parameters it takes (``sy, sx, ph, pw,
            cover_all, dy, dx, groups``): a :class:`Convolution2DFunction`,
            or a deconvolution whose input and output swap roles.
        W_shape: The shape of the weight, ``(c_out, c_in / groups, kh, kw)``.
    """

    def __init__(self, conv2d: Any, W_shape: tuple[int, ...]) -> None:
        self.kh, self.kw = W_shape[2:]
        self.sy, self.sx = conv2d.sy, conv2d.sx
        self.ph, self.pw = conv2d.ph, conv2d.pw
        self.dy, self.dx = conv2d.dy, conv2d.dx
        self.cover_all = conv2d.cover_all
        self.groups = conv2d.groups

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return _conv_core.convolution_grad_w(
            x, gy, (self.kh, self.kw), (self.sy, self.sx), (self.ph, self.pw), self.cover_all,
            (self.dy, self.dx), self.groups),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, gy = self.get_retained_inputs()
        ggW, = grad_outputs
        ret: list[Any] = []
        if 0 in indexes:
            ret.append(deconvolution_2d.deconvolution_2d(
                gy, ggW, stride=(self.sy, self.sx), pad=(self.ph, self.pw),
                outsize=x.shape[2:], dilate=(self.dy, self.dx), groups=self.groups))
        if 1 in indexes:
            ret.append(convolution_2d(
                x, ggW, stride=(self.sy, self.sx), pad=(self.ph, self.pw),
                cover_all=self.cover_all, dilate=(self.dy, self.dx), groups=self.groups))
        return tuple(ret)


def convolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                   cover_all: bool = False, *, dilate: Any = 1, groups: int = 1) -> Variable:
    """Two-dimensional convolution.

    Computes the cross-correlation of the images ``x`` with the filters
    ``W``, plus the bias ``b``:

    .. math::

        y_{n, o, i, j} = b_o + \\sum_{c, p, q} W_{o, c, p, q}\\,
        x_{n, g(o) + c, s_y i + d_y p - p_h, s_x j + d_x q - p_w}

    where pixels outside the image read zero and ``g(o)`` is the first input
    channel of the group of output channel ``o``. The output size along the
    height is ``(h + 2 p_h - ((kh - 1) d_y + 1)) // s_y + 1`` (see
    :func:`catena.utils.conv.get_conv_outsize`), likewise for the width.

    Args:
        x: Input images of shape ``(n, c_in, h, w)``.
        W: Filters of shape ``(c_out, c_in / groups, kh, kw)``; its float dtype
            may differ from ``x``'s (its gradient keeps it).
        b: Bias of shape ``(c_out,)`` in ``x``'s dtype, or None.
        stride: The stride (``s_y, s_x``), an int or a pair.
        pad: The zero padding (``p_h, p_w``), an int or a pair.
        cover_all: Add windows so that every input pixel is covered (the
            output size is rounded up instead of down).
        dilate: The dilation (``d_y, d_x``), an int or a pair.
        groups: Split the channels into this many groups, each convolved
            with its own ``c_out / groups`` filters.

    Returns:
        Variable: Output of shape ``(n, c_out, out_h, out_w)`` in ``x``'s dtype.

    Raises:
        InvalidType: If a dtype is not floating point, ``b``'s differs from
            ``x``'s, or the ranks or channel counts do not match.
        ValueError: If the dilated kernel is larger than the padded input.

    .. admonition:: Example

        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> W = np.ones((1, 1, 2, 2), dtype=np.float32)
        >>> F.convolution_2d(x, W, stride=2).array
        array([[[[10., 18.],
                 [42., 50.]]]], dtype=float32)
    """
    node = Convolution2DFunction(stride, pad, cover_all, dilate=dilate, groups=groups)
    args = (x, W) if b is None else (x, W, b)
    return node.apply(args)[0]
