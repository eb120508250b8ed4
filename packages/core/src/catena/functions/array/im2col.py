"""``im2col``: the convolution windows of images as channels."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.connection import _conv_core
from catena.utils import conv, type_check
from catena.variable import Variable


class Im2Col(FunctionNode):
    """Image ``(n, c, h, w)`` to columns ``(n, c * kh * kw, out_h, out_w)``."""

    def __init__(self, ksize: Any, stride: Any = 1, pad: Any = 0, cover_all: bool = False,
                 dilate: Any = 1) -> None:
        self.kh, self.kw = _conv_core.as_params(ksize, 2, 'ksize', 1)
        self.sy, self.sx = _conv_core.as_params(stride, 2, 'stride', 1)
        self.ph, self.pw = _conv_core.as_params(pad, 2, 'pad', 0)
        self.cover_all = bool(cover_all)
        self.dy, self.dx = _conv_core.as_params(dilate, 2, 'dilate', 1)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].ndim == 4)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_size = x.shape[2:]
        col = conv.im2col(x, self.kh, self.kw, self.sy, self.sx, self.ph, self.pw,
                          cover_all=self.cover_all, dy=self.dy, dx=self.dx)
        n, c, kh, kw, out_h, out_w = col.shape
        return col.reshape(n, c * kh * kw, out_h, out_w),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return Col2Im(self, self._in_size).apply(grad_outputs)


class Col2Im(FunctionNode):
    """The adjoint of :class:`Im2Col`: sums columns back into an image.

    Args:
        im2col: The :class:`Im2Col` node whose parameters it takes.
        in_size: The image size ``(h, w)``.
    """

    def __init__(self, im2col: Im2Col, in_size: tuple[int, int]) -> None:
        self.im2col = im2col
        self.in_size = tuple(in_size)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        f = self.im2col
        n, _, out_h, out_w = gy.shape
        col = gy.reshape(n, -1, f.kh, f.kw, out_h, out_w)
        h, w = self.in_size
        return conv.col2im(col, f.sy, f.sx, f.ph, f.pw, h, w, f.dy, f.dx),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        f = self.im2col
        return Im2Col((f.kh, f.kw), (f.sy, f.sx), (f.ph, f.pw), f.cover_all,
                      (f.dy, f.dx)).apply(grad_outputs)


def im2col(x: Any, ksize: Any, stride: Any = 1, pad: Any = 0, cover_all: bool = False,
           dilate: Any = 1) -> Variable:
    """Extracts the convolution windows of images into the channel axis.

    Output channel ``c * kh * kw + i * kw + j`` at position ``(y, x)`` is the
    input pixel of channel ``c`` that kernel tap ``(i, j)`` of a 2-d
    convolution with the same parameters reads for output position
    ``(y, x)``; taps in the padding read zero. A convolution is then a
    product of the weights reshaped to ``(c_out, c * kh * kw)`` with these
    columns.

    Args:
        x: Images of shape ``(n, c, h, w)``.
        ksize: The window size, an int or a pair ``(kh, kw)``.
        stride: The stride, an int or a pair.
        pad: The zero padding, an int or a pair.
        cover_all: Add windows so that every pixel is covered (see
            :func:`catena.utils.conv.get_conv_outsize`).
        dilate: The dilation, an int or a pair.

    Returns:
        Variable: Columns of shape ``(n, c * kh * kw, out_h, out_w)``.

    Raises:
        InvalidType: If ``x`` is not 4-dimensional.
        ValueError: If the window does not fit in the padded image.

    .. admonition:: Example

        >>> x = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
        >>> F.im2col(x, 2).array[0, :, 0, 0]
        array([0., 1., 3., 4.], dtype=float32)
    """
    return Im2Col(ksize, stride, pad, cover_all, dilate).apply((x,))[0]
