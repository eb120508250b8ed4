"""``deconvolution_2d``: two-dimensional transposed convolution."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.connection import (
    _conv_core,
    convolution_2d,  # a module: the two import each other
)
from catena.functions.math.sum import sum as _sum
from catena.variable import Variable


class Deconvolution2DFunction(FunctionNode):
    """2-d transposed convolution.

    The inputs are ``x`` ``(n, c_in, h, w)``, ``W`` ``(c_in, c_out / groups,
    kh, kw)`` and optionally ``b`` ``(c_out,)``.

    Attributes:
        sy, sx: The strides.
        ph, pw: The paddings.
        outh, outw: The requested output size (None: the smallest consistent one).
        dy, dx: The dilations.
        groups: The number of channel groups.
        cover_all: Set by forward: whether the matching convolution, which
            maps the output back to the input's size, needs ``cover_all``.
    """

    cover_all = False

    def __init__(self, stride: Any = 1, pad: Any = 0, outsize: Any = None, *,
                 dilate: Any = 1, groups: int = 1) -> None:
        self.sy, self.sx = _conv_core.as_params(stride, 2, 'stride', 1)
        self.ph, self.pw = _conv_core.as_params(pad, 2, 'pad', 0)
        self.outh: int | None = None
        self.outw: int | None = None
        if outsize is not None:
            self.outh, self.outw = _conv_core.as_params(outsize, 2, 'outsize', 1)
        self.dy, self.dx = _conv_core.as_params(dilate, 2, 'dilate', 1)
        self.groups = _conv_core.as_groups(groups)

    def check_type_forward(self, in_types: Any) -> None:
        _conv_core.check_types(in_types, 2, self.groups, transposed=True)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        stride, pad, dilate = (self.sy, self.sx), (self.ph, self.pw), (self.dy, self.dx)
        outsize = None if self.outh is None else (self.outh, self.outw)
        outs, self.cover_all = _conv_core.deconv_outsizes(
            'deconvolution_2d', x.shape, W.shape, stride, pad, outsize, dilate)
        return _conv_core.deconvolution(x, W, b, stride, pad, dilate, self.groups, outs),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        ret: list[Any] = []
        if 0 in indexes:
            ret.append(convolution_2d.convolution_2d(
                gy, W, stride=(self.sy, self.sx), pad=(self.ph, self.pw),
                cover_all=self.cover_all, dilate=(self.dy, self.dx), groups=self.groups))
        if 1 in indexes:
            ret.append(_conv_core.as_weight_dtype(
                convolution_2d.Convolution2DGradW(self, W.shape).apply((gy, x))[0], W.dtype))
        if 2 in indexes:
            ret.append(_sum(gy, axis=(0, 2, 3)))
        return tuple(ret)


def deconvolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                     outsize: Any = None, *, dilate: Any = 1, groups: int = 1) -> Variable:
    """Two-dimensional deconvolution (transposed convolution).

    The transpose of :func:`convolution_2d` with the same ``W``, ``stride``,
    ``pad``, ``dilate`` and ``groups``: each input pixel scatters ``W``
    (scaled by the pixel) onto the output window it would have been computed
    from, and overlapping contributions add up; then ``b`` is added. Its
    gradient with respect to ``x`` is that convolution.

    Without ``outsize`` the output height is
    ``s_y (h - 1) + (kh - 1) d_y + 1 - 2 p_h`` (see
    :func:`catena.utils.conv.get_deconv_outsize`), likewise the width.
    Several output sizes map back to the same input size under a strided
    convolution; ``outsize`` picks one of them.

    Args:
        x: Input images of shape ``(n, c_in, h, w)``.
        W: Filters of shape ``(c_in, c_out / groups, kh, kw)``; its float dtype
            may differ from ``x``'s (its gradient keeps it).
        b: Bias of shape ``(c_out,)`` in ``x``'s dtype, or None.
        stride: The stride, an int or a pair.
        pad: The padding cropped from the output, an int or a pair.
        outsize: The output size ``(out_h, out_w)``, or None.
        dilate: The dilation, an int or a pair.
        groups: The number of channel groups.

    Returns:
        Variable: Output of shape ``(n, c_out, out_h, out_w)`` in ``x``'s dtype.

    Raises:
        InvalidType: If a dtype is not floating point, ``b``'s differs from
            ``x``'s, or the ranks or channel counts do not match.
        ValueError: If ``outsize`` is not consistent with the input size, or
            the padding leaves no output.

    .. admonition:: Example

        >>> x = np.ones((1, 1, 2, 2), dtype=np.float32)
        >>> W = np.ones((1, 1, 2, 2), dtype=np.float32)
        >>> F.deconvolution_2d(x, W, stride=1).array
        array([[[[1., 2., 1.],
                 [2., 4., 2.],
                 [1., 2., 1.]]]], dtype=float32)
    """
    node = Deconvolution2DFunction(stride, pad, outsize, dilate=dilate, groups=groups)
    args = (x, W) if b is None else (x, W, b)
    return node.apply(args)[0]
