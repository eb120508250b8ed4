"""Size arithmetic and im2col / col2im for convolution and pooling (``catena.utils.conv``).

Conventions shared by every helper here:

* Images are laid out as ``(n, c, *spatial)``; 2-D helpers take the height
  before the width everywhere (``kh, kw``, ``sy, sx``, ``ph, pw``, ``dy, dx``).
* ``k`` is a kernel size, ``s`` a stride, ``p`` a symmetric zero padding and
  ``d`` a dilation: a kernel of size ``k`` dilated by ``d`` spans
  ``(k - 1) * d + 1`` pixels.
* ``cover_all=True`` adds output positions so that every input pixel is
  covered by at least one window (needed by pooling with ``cover_all``);
  the extra windows read the padding value beyond the bottom/right edge.
* A *column* array ``col`` has shape ``(n, c, *ksize, *outsize)``:
  ``col[:, :, i, j, y, x]`` is the input pixel that kernel tap ``(i, j)``
  reads for output position ``(y, x)``, or ``pval`` where it falls into the
  padding.

:func:`im2col` and :func:`col2im` are generic: they work on any array module
with NumPy's slicing semantics (NumPy, CuPy, the test device), looping in
Python over the kernel taps only (``kh * kw`` strided copies), never over
pixels. ``im2col_cpu`` / ``im2col_gpu`` / ``col2im_cpu`` / ``col2im_gpu`` are
Chainer's names for them; a backend plugin may ship faster kernels of its own
for the FunctionNodes that use them. :mod:`catena.utils.conv_nd` holds the
n-dimensional versions.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from catena import backend

__all__ = [
    'col2im', 'col2im_cpu', 'col2im_gpu', 'col2im_nd_generic', 'get_conv_outsize',
    'get_deconv_outsize', 'im2col', 'im2col_cpu', 'im2col_gpu', 'im2col_nd_generic',
]


def get_conv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False,
                     d: int = 1) -> int:
    """Returns the output length of a convolution or pooling along one axis.

    Args:
        size: The input length.
        k: The kernel length.
        s: The stride.
        p: The padding added at both ends.
        cover_all: Add windows so that the last input pixels are covered
            even when the stride does not divide the padded length.
        d: The dilation.

    Returns:
        int: ``(size + 2p - dk) // s + 1`` with ``dk = (k - 1) * d + 1``
        (rounded up instead of down with ``cover_all``). It may be zero or
        negative when the kernel does not fit; callers check.

    .. admonition:: Example

        >>> from catena.utils import conv
        >>> conv.get_conv_outsize(5, 3, 2, 1)
        3
        >>> conv.get_conv_outsize(6, 3, 2, 0), conv.get_conv_outsize(6, 3, 2, 0, cover_all=True)
        (2, 3)
    """
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return (size + p * 2 - dk + s - 1) // s + 1
    return (size + p * 2 - dk) // s + 1


def get_deconv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False,
                       d: int = 1) -> int:
    """Returns the output length of a transposed convolution along one axis.

    It is the smallest length that a convolution with the same parameters
    maps back to ``size`` (with a stride ``s``, the ``s - 1`` next lengths
    map to ``size`` too).

    Args:
        size: The input length.
        k: The kernel length.
        s: The stride.
        p: The padding.
        cover_all: Whether the matching convolution used ``cover_all``.
        d: The dilation.

    Returns:
        int: ``s * (size - 1) + dk - 2p`` with ``dk = (k - 1) * d + 1``
        (``s - 1`` less with ``cover_all``).

    .. admonition:: Example

        >>> from catena.utils import conv
        >>> conv.get_deconv_outsize(3, 3, 2, 1)
        5
    """
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return s * (size - 1) + dk - s + 1 - 2 * p
    return s * (size - 1) + dk - 2 * p


# ----------------------------------------------------------------- n-d core

def _extents(dims: Sequence[int], ksize: Sequence[int], stride: Sequence[int],
             pad: Sequence[int], dilate: Sequence[int], outs: Sequence[int]) -> tuple[int, ...]:
    """Per axis: the padded length that holds the image and every window's reach."""
    return tuple(max(size + 2 * p, (k - 1) * d + s * (o - 1) + 1)
                 for size, k, s, p, d, o in zip(dims, ksize, stride, pad, dilate, outs))


def _tap_slices(tap: Sequence[int], stride: Sequence[int], dilate: Sequence[int],
                outs: Sequence[int]) -> tuple[slice, ...]:
    """The slices of the padded image that kernel tap ``tap`` reads, batch and channel first."""
    return (slice(None), slice(None)) + tuple(
        slice(i * d, i * d + s * (o - 1) + 1, s)
        for i, s, d, o in zip(tap, stride, dilate, outs))


def im2col_nd_generic(img: Any, ksize: Sequence[int], stride: Sequence[int],
                      pad: Sequence[int], pval: Any = 0, cover_all: bool = False,
                      dilate: Sequence[int] | None = None,
                      outs: Sequence[int] | None = None) -> Any:
    """Extracts the convolution windows of an n-d image (the engine of the im2col helpers).

    Args:
        img: An array ``(n, c, *dims)``.
        ksize: The kernel size per spatial axis.
        stride: The stride per spatial axis.
        pad: The padding per spatial axis (both ends).
        pval: The value read in the padding (``-inf`` for max pooling).
        cover_all: See :func:`get_conv_outsize`.
        dilate: The dilation per spatial axis (default 1).
        outs: The output size per axis; computed with
            :func:`get_conv_outsize` when omitted.

    Returns:
        A new C-contiguous array ``(n, c, *ksize, *outs)`` of ``img``'s dtype.

    Raises:
        ValueError: If the window does not fit (an output size below 1).
    """
    padded, outs, dilate = _padded_image(img, ksize, stride, pad, pval, cover_all, dilate, outs)
    col = backend.get_array_module(img).empty(img.shape[:2] + tuple(ksize) + tuple(outs),
                                              dtype=img.dtype)
    _fill_columns(col, padded, ksize, stride, dilate, outs)
    return col


def im2col_nd_channel_major(img: Any, ksize: Sequence[int], stride: Sequence[int],
                            pad: Sequence[int], cover_all: bool, dilate: Sequence[int],
                            outs: Sequence[int]) -> Any:
    """The columns of :func:`im2col_nd_generic` as a C-contiguous ``(c, *ksize, n, *outs)``.

    In this layout the columns of the whole batch are one matrix
    ``(c * K, n * L)``, so that a convolution is a single matrix product.
    """
    padded, outs, dilate = _padded_image(img, ksize, stride, pad, 0, cover_all, dilate, outs)
    col = backend.get_array_module(img).empty(
        (img.shape[1],) + tuple(ksize) + (img.shape[0],) + tuple(outs), dtype=img.dtype)
    _fill_columns(batch_first_view(col), padded, ksize, stride, dilate, outs)
    return col


def batch_first_view(col: Any) -> Any:
    """Channel-major columns ``(c, *ksize, n, *outs)`` seen as ``(n, c, *ksize, *outs)``.

    The view (no copy) is what :func:`col2im_nd_generic` reads.
    """
    nd = (col.ndim - 2) // 2
    return col.transpose((nd + 1, 0) + tuple(range(1, nd + 1)) +
                         tuple(range(nd + 2, 2 * nd + 2)))


def _padded_image(img: Any, ksize: Sequence[int], stride: Sequence[int], pad: Sequence[int],
                  pval: Any, cover_all: bool, dilate: Sequence[int] | None,
                  outs: Sequence[int] | None) -> tuple[Any, tuple[int, ...], tuple[int, ...]]:
    """``img`` padded to hold every window (or ``img`` itself), the output size and dilation."""
    nd = img.ndim - 2
    dilate = (1,) * nd if dilate is None else tuple(dilate)
    dims = img.shape[2:]
    if outs is None:
        outs = tuple(get_conv_outsize(size, k, s, p, cover_all, d)
                     for size, k, s, p, d in zip(dims, ksize, stride, pad, dilate))
    outs = tuple(outs)
    if any(o < 1 for o in outs):
        raise ValueError(
            f'im2col: the kernel {tuple(ksize)} (dilation {tuple(dilate)}) does not fit in the '
            f'input of spatial shape {tuple(dims)} padded by {tuple(pad)}: the output size '
            f'would be {tuple(outs)}')
    xp = backend.get_array_module(img)
    extents = _extents(dims, ksize, stride, pad, dilate, outs)
    if not any(pad) and all(e <= size for e, size in zip(extents, dims)):
        return img, outs, dilate
    padded = xp.full(img.shape[:2] + extents, img.dtype.type(pval), dtype=img.dtype)
    padded[(slice(None), slice(None)) + tuple(slice(p, p + size)
                                              for p, size in zip(pad, dims))] = img
    return padded, outs, dilate


def _fill_columns(col: Any, padded: Any, ksize: Sequence[int], stride: Sequence[int],
                  dilate: Sequence[int], outs: Sequence[int]) -> None:
    """Copies each kernel tap's window of ``padded`` into ``col`` seen as ``(n, c, *k, *outs)``."""
    lead = (slice(None), slice(None))
    for tap in itertools.product(*(range(k) for k in ksize)):
        col[lead + tap] = padded[_tap_slices(tap, stride, dilate, outs)]


def col2im_nd_generic(col: Any, stride: Sequence[int], pad: Sequence[int],
                      dims: Sequence[int], dilate: Sequence[int] | None = None) -> Any:
    """Sums columns back into an n-d image: the adjoint of :func:`im2col_nd_generic`.

    Args:
        col: An array ``(n, c, *ksize, *outs)``.
        stride: The stride per spatial axis.
        pad: The padding per spatial axis.
        dims: The spatial shape of the image to build.
        dilate: The dilation per spatial axis (default 1).

    Returns:
        An array ``(n, c, *dims)`` of ``col``'s dtype, where each pixel is
        the sum of the column entries that read it (entries that read the
        padding are dropped). It may be a view into a larger buffer.
    """
    nd = (col.ndim - 2) // 2
    dilate = (1,) * nd if dilate is None else tuple(dilate)
    ksize = col.shape[2:2 + nd]
    outs = col.shape[2 + nd:]
    dims = tuple(dims)
    xp = backend.get_array_module(col)
    extents = _extents(dims, ksize, stride, pad, dilate, outs)
    img = xp.zeros(col.shape[:2] + extents, dtype=col.dtype)
    lead = (slice(None), slice(None))
    for tap in itertools.product(*(range(k) for k in ksize)):
        img[_tap_slices(tap, stride, dilate, outs)] += col[lead + tap]
    if extents == dims:
        return img
    return img[lead + tuple(slice(p, p + size) for p, size in zip(pad, dims))]


# ---------------------------------------------------------------- 2-d API

def im2col(img: Any, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int, pval: Any = 0,
           cover_all: bool = False, dy: int = 1, dx: int = 1, out_h: int | None = None,
           out_w: int | None = None) -> Any:
    """Extracts the windows of a 2-d convolution or pooling.

    Args:
        img: An array ``(n, c, h, w)``.
        kh, kw: The kernel size.
        sy, sx: The strides.
        ph, pw: The paddings.
        pval: The value read in the padding (0; ``-inf`` for max pooling).
        cover_all: See :func:`get_conv_outsize`.
        dy, dx: The dilations.
        out_h, out_w: The output size (computed when omitted).

    Returns:
        A new array ``(n, c, kh, kw, out_h, out_w)``.

    Raises:
        ValueError: If the kernel does not fit in the padded image.

    .. admonition:: Example

        >>> from catena.utils import conv
        >>> img = np.arange(9.0).reshape(1, 1, 3, 3)
        >>> conv.im2col(img, 2, 2, 1, 1, 0, 0)[0, 0, :, :, 0, 0]
        array([[0., 1.],
               [3., 4.]])
    """
    outs = None
    if out_h is not None or out_w is not None:
        h, w = img.shape[2:]
        if out_h is None:
            out_h = get_conv_outsize(h, kh, sy, ph, cover_all, dy)
        if out_w is None:
            out_w = get_conv_outsize(w, kw, sx, pw, cover_all, dx)
        outs = (out_h, out_w)
    return im2col_nd_generic(img, (kh, kw), (sy, sx), (ph, pw), pval, cover_all, (dy, dx), outs)


def col2im(col: Any, sy: int, sx: int, ph: int, pw: int, h: int, w: int, dy: int = 1,
           dx: int = 1) -> Any:
    """Sums the columns ``(n, c, kh, kw, out_h, out_w)`` back into an image ``(n, c, h, w)``.

    It is the adjoint (transpose) of :func:`im2col` with the same parameters:
    every column entry is added to the pixel it was read from.

    Args:
        col: An array ``(n, c, kh, kw, out_h, out_w)``.
        sy, sx: The strides.
        ph, pw: The paddings.
        h, w: The image size.
        dy, dx: The dilations.

    Returns:
        An array ``(n, c, h, w)`` (possibly a view into a padded buffer).
    """
    return col2im_nd_generic(col, (sy, sx), (ph, pw), (h, w), (dy, dx))


#: Chainer's name for :func:`im2col` on NumPy arrays.
im2col_cpu = im2col


def im2col_gpu(img: Any, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int,
               cover_all: bool = False, dy: int = 1, dx: int = 1, out_h: int | None = None,
               out_w: int | None = None) -> Any:
    """Chainer's GPU spelling of :func:`im2col` (no ``pval``: the padding reads 0).

    It runs the generic path; a GPU plugin registers faster kernels for the
    FunctionNodes instead of replacing this helper.
    """
    return im2col(img, kh, kw, sy, sx, ph, pw, 0, cover_all, dy, dx, out_h, out_w)


#: Chainer's name for :func:`col2im` on NumPy arrays.
col2im_cpu = col2im
#: Chainer's name for :func:`col2im` on GPU arrays (the generic path).
col2im_gpu = col2im
