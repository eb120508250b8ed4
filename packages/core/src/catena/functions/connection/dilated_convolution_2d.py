"""``dilated_convolution_2d``: a 2-d convolution with a dilated kernel."""

from __future__ import annotations

from typing import Any

from catena.functions.connection.convolution_2d import convolution_2d
from catena.variable import Variable


def dilated_convolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                           dilate: Any = 1, cover_all: bool = False) -> Variable:
    """Two-dimensional dilated convolution.

    The kernel taps are ``dilate`` pixels apart, so a ``kh x kw`` kernel
    spans ``(kh - 1) d_y + 1`` rows and ``(kw - 1) d_x + 1`` columns. It is
    :func:`~catena.functions.convolution_2d` with ``dilate`` (and is computed
    by it: the graph holds a ``Convolution2DFunction`` node).

    Args:
        x: Input images of shape ``(n, c_in, h, w)``.
        W: Filters of shape ``(c_out, c_in, kh, kw)``.
        b: Bias of shape ``(c_out,)``, or None.
        stride: The stride, an int or a pair.
        pad: The zero padding, an int or a pair.
        dilate: The dilation, an int or a pair.
        cover_all: Add windows so that every input pixel is covered.

    Returns:
        Variable: Output of shape ``(n, c_out, out_h, out_w)``.

    Raises:
        InvalidType: If the dtypes, ranks or channel counts do not match.
        ValueError: If the dilated kernel is larger than the padded input.

    .. admonition:: Example

        >>> x = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
        >>> W = np.ones((1, 1, 2, 2), dtype=np.float32)
        >>> F.dilated_convolution_2d(x, W, dilate=2).shape
        (1, 1, 3, 3)
    """
    return convolution_2d(x, W, b, stride, pad, cover_all, dilate=dilate)
