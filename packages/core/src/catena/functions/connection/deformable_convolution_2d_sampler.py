"""``deformable_convolution_2d_sampler``: a 2-d convolution whose taps read at learned offsets."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.functions import _arguments
from catena.functions.array.get_item import get_item
from catena.functions.array.reshape import reshape
from catena.functions.array.transpose import transpose
from catena.functions.connection import _conv_core
from catena.functions.connection.linear import linear
from catena.utils import type_check
from catena.variable import Variable


def _invalid(expect: str, actual: str) -> type_check.InvalidType:
    return type_check.InvalidType(
        expect, actual, 'Invalid operation is performed in: deformable_convolution_2d_sampler'
        f'\n\nExpect: {expect}\nActual: {actual}\n')


def _check_inputs(x: Any, offset: Any, W: Any, stride: tuple[int, int],
                  pad: tuple[int, int]) -> None:
    for name, value in (('x', x), ('offset', offset), ('W', W)):
        _arguments.array('deformable_convolution_2d_sampler', name, value)
    x_shape, offset_shape, w_shape = tuple(x.shape), tuple(offset.shape), tuple(W.shape)
    x_dtype, offset_dtype, w_dtype = x.dtype, offset.dtype, W.dtype
    shapes = f'x.shape={x_shape}, offset.shape={offset_shape}, W.shape={w_shape}'
    if len(x_shape) != 4 or len(offset_shape) != 4 or len(w_shape) != 4:
        raise _invalid('x.ndim == 4, offset.ndim == 4 and W.ndim == 4', shapes)
    if not x_dtype == offset_dtype == w_dtype or x_dtype.kind != 'f':
        raise _invalid('x.dtype == offset.dtype == W.dtype (floating point)',
                       f'{x_dtype}, {offset_dtype}, {w_dtype}')
    if x_shape[1] != w_shape[1]:
        raise _invalid('x.shape[1] == W.shape[1] (the input channels)',
                       f'{x_shape[1]} != {w_shape[1]} ({shapes})')
    if offset_shape[0] != x_shape[0] or offset_shape[1] != 2 * w_shape[2] * w_shape[3]:
        raise _invalid('offset.shape[:2] == (x.shape[0], 2 * kh * kw)',
                       f'{tuple(offset_shape[:2])} != '
                       f'{(x_shape[0], 2 * w_shape[2] * w_shape[3])} ({shapes})')
    outs = tuple((size + 2 * p - k) // s + 1
                 for size, k, s, p in zip(x_shape[2:], w_shape[2:], stride, pad))
    if min(outs) < 1 or outs != tuple(offset_shape[2:]):
        raise ValueError(
            f'deformable_convolution_2d_sampler: the convolution gives the output size {outs} '
            f'(stride={stride}, pad={pad}), but the offsets are given for '
            f'{tuple(offset_shape[2:])}: {shapes}')


def deformable_convolution_2d_sampler(x: Any, offset: Any, W: Any, b: Any = None,
                                      stride: Any = 1, pad: Any = 0) -> Variable:
    """Two-dimensional deformable convolution with given offsets.

    A 2-d convolution (no dilation) in which kernel tap ``(p, q)`` of output
    position ``(i, j)`` reads the input, bilinearly interpolated, at

    .. math::

        (s_y i + p - p_h + \\Delta y_{p k_W + q, i, j},\\;
         s_x j + q - p_w + \\Delta x_{p k_W + q, i, j})

    instead of the regular grid point (`Deformable Convolutional Networks
    <https://arxiv.org/abs/1703.06211>`_). The image is zero outside its
    bounds. The first ``kh * kw`` channels of ``offset`` are the horizontal
    offsets :math:`\\Delta x`, the last ``kh * kw`` the vertical ones
    :math:`\\Delta y`. It is differentiable in ``x``, ``offset``, ``W`` and
    ``b`` (the offsets everywhere but at integer sampling coordinates, where
    the interpolation has kinks), to any order.

    Args:
        x: Input images of shape ``(n, c_in, h, w)``.
        offset: Offsets of shape ``(n, 2 * kh * kw, out_h, out_w)``, where
            ``out_h = (h + 2 p_h - kh) // s_y + 1`` and likewise ``out_w``.
        W: Filters of shape ``(c_out, c_in, kh, kw)``.
        b: Bias of shape ``(c_out,)``, or None.
        stride: The stride, an int or a pair.
        pad: The padding, an int or a pair.

    Returns:
        Variable: Output of shape ``(n, c_out, out_h, out_w)``.

    Raises:
        InvalidType: If the ranks, channel counts or offset channels do not
            match.
        ValueError: If the offsets' spatial shape is not the output size.

    .. admonition:: Example

        >>> x = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
        >>> W = np.ones((1, 1, 1, 1), dtype=np.float32)
        >>> offset = np.full((1, 2, 3, 3), 0.5, dtype=np.float32)
        >>> F.deformable_convolution_2d_sampler(x, offset, W).array[0, 0]
        array([[2.  , 3.  , 1.75],
               [5.  , 6.  , 3.25],
               [3.25, 3.75, 2.  ]], dtype=float32)
    """
    sy, sx = _conv_core.as_params(stride, 2, 'stride', 1)
    ph, pw = _conv_core.as_params(pad, 2, 'pad', 0)
    _check_inputs(x, offset, W, (sy, sx), (ph, pw))
    n, c, h, w = x.shape
    c_out, _, kh, kw = W.shape
    out_h, out_w = offset.shape[2:]
    taps = kh * kw
    offset_data = offset.array if isinstance(offset, Variable) else offset
    xp = backend.get_array_module(offset_data)
    dtype = offset_data.dtype

    # The regular grid, shape (1, taps, out_h, out_w), tap t = p * kw + q.
    tap_y = xp.repeat(xp.arange(kh), kw).reshape(1, taps, 1, 1)
    tap_x = xp.tile(xp.arange(kw), kh).reshape(1, taps, 1, 1)
    grid_y = (tap_y + (xp.arange(out_h) * sy - ph).reshape(1, 1, out_h, 1)).astype(dtype)
    grid_x = (tap_x + (xp.arange(out_w) * sx - pw).reshape(1, 1, 1, out_w)).astype(dtype)
    pos_y = get_item(offset, (slice(None), slice(taps, None))) + grid_y
    pos_x = get_item(offset, (slice(None), slice(None, taps))) + grid_x

    # Bilinear interpolation: the four neighbours, weighted by (1 - distance);
    # neighbours outside the image count as zero (a constant mask).
    y0 = xp.floor(pos_y.array)
    x0 = xp.floor(pos_x.array)
    frac_y = pos_y - y0
    frac_x = pos_x - x0
    weights_y = (1 - frac_y, frac_y)
    weights_x = (1 - frac_x, frac_x)
    pixels = reshape(transpose(reshape(x, (n, c, h * w)), (0, 2, 1)), (n * h * w, c))
    batch_base = (xp.arange(n) * (h * w)).reshape(n, 1, 1, 1)
    sampled: Any = None
    for dy in (0, 1):
        rows = (y0 + dy).astype(xp.int64)
        for dx in (0, 1):
            cols = (x0 + dx).astype(xp.int64)
            inside = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)
            index = batch_base + xp.clip(rows, 0, h - 1) * w + xp.clip(cols, 0, w - 1)
            weight = weights_y[dy] * weights_x[dx] * inside.astype(dtype)
            # (n, taps, out_h, out_w, c): the neighbour's channels, weighted.
            term = get_item(pixels, index) * reshape(weight, weight.shape + (1,))
            sampled = term if sampled is None else sampled + term

    # (n, out_h, out_w, c, taps) rows times W (c_out, c * taps): one GEMM.
    columns = reshape(transpose(sampled, (0, 2, 3, 4, 1)), (n * out_h * out_w, c * taps))
    y = linear(columns, reshape(W, (c_out, c * taps)), b)
    return transpose(reshape(y, (n, out_h, out_w, c_out)), (0, 3, 1, 2))
