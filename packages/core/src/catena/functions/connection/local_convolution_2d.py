"""``local_convolution_2d``: a 2-d convolution whose filters differ at every output position."""

from __future__ import annotations

from typing import Any

from catena.functions.array.im2col import im2col
from catena.functions.array.reshape import reshape
from catena.functions.array.transpose import transpose
from catena.functions.connection import _conv_core
from catena.functions.math.basic_math import matmul
from catena.utils import type_check
from catena.variable import Variable


def _invalid(expect: str, actual: str) -> type_check.InvalidType:
    return type_check.InvalidType(
        expect, actual, 'Invalid operation is performed in: local_convolution_2d\n\n'
        f'Expect: {expect}\nActual: {actual}\n')


def _check_shapes(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                  b_shape: tuple[int, ...] | None, stride: tuple[int, int]) -> None:
    shapes = f'x.shape={x_shape}, W.shape={w_shape}'
    if len(x_shape) != 4 or len(w_shape) != 6:
        raise _invalid('x.ndim == 4 and W.ndim == 6 (x: (n, c_in, h, w), W: (c_out, out_h, '
                       'out_w, c_in, kh, kw))', shapes)
    if x_shape[1] != w_shape[3]:
        raise _invalid('x.shape[1] == W.shape[3] (the input channels)',
                       f'{x_shape[1]} != {w_shape[3]} ({shapes})')
    outs = tuple((size - k) // s + 1 for size, k, s in zip(x_shape[2:], w_shape[4:], stride))
    if outs != tuple(w_shape[1:3]):
        raise ValueError(
            f'local_convolution_2d: the output size {outs} of the {w_shape[4:]} kernel with '
            f'stride {stride} does not match the {tuple(w_shape[1:3])} positions of W: {shapes}')
    if b_shape is not None and tuple(b_shape) != tuple(w_shape[:3]):
        raise _invalid('b.shape == W.shape[:3] (c_out, out_h, out_w)',
                       f'{tuple(b_shape)} != {tuple(w_shape[:3])}')


def local_convolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1) -> Variable:
    """Two-dimensional locally connected layer (unshared convolution).

    Like :func:`~catena.functions.convolution_2d` without padding, but the
    filter is different at each output position:

    .. math::

        y_{n, o, i, j} = b_{o, i, j} + \\sum_{c, p, q} W_{o, i, j, c, p, q}\\,
        x_{n, c, s_y i + p, s_x j + q}

    Computed from :func:`~catena.functions.im2col` and one batched product
    over the output positions.

    Args:
        x: Input images of shape ``(n, c_in, h, w)``.
        W: Filters of shape ``(c_out, out_h, out_w, c_in, kh, kw)``, where
            ``out_h = (h - kh) // s_y + 1`` and likewise ``out_w``.
        b: Bias of shape ``(c_out, out_h, out_w)``, or None.
        stride: The stride, an int or a pair.

    Returns:
        Variable: Output of shape ``(n, c_out, out_h, out_w)``.

    Raises:
        InvalidType: If the ranks, channel counts or bias shape do not match.
        ValueError: If the output size of the kernel does not match ``W``.

    .. admonition:: Example

        >>> x = np.ones((1, 1, 3, 3), dtype=np.float32)
        >>> W = np.arange(8, dtype=np.float32).reshape(2, 2, 2, 1, 1, 1)
        >>> F.local_convolution_2d(x, W, stride=2).array
        array([[[[0., 1.],
                 [2., 3.]],
        <BLANKLINE>
                [[4., 5.],
                 [6., 7.]]]], dtype=float32)
    """
    sy, sx = _conv_core.as_params(stride, 2, 'stride', 1)
    _check_shapes(tuple(x.shape), tuple(W.shape), None if b is None else tuple(b.shape),
                  (sy, sx))
    n = x.shape[0]
    c_out, out_h, out_w, c_in, kh, kw = W.shape
    taps = c_in * kh * kw
    col = im2col(x, (kh, kw), (sy, sx))  # (n, c_in * kh * kw, out_h, out_w)
    col = reshape(transpose(col, (2, 3, 0, 1)), (out_h * out_w, n, taps))
    w = reshape(transpose(reshape(W, (c_out, out_h, out_w, taps)), (1, 2, 3, 0)),
                (out_h * out_w, taps, c_out))
    # (positions, n, taps) @ (positions, taps, c_out) -> (positions, n, c_out)
    y = transpose(reshape(matmul(col, w), (out_h, out_w, n, c_out)), (2, 3, 0, 1))
    if b is not None:
        y = y + b
    return y
