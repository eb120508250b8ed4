"""im2col / col2im for n-dimensional convolution and pooling (``catena.utils.conv_nd``).

The n-d counterparts of :mod:`catena.utils.conv`, with the same conventions:
images are ``(n, c, *dims)`` and columns ``(n, c, *ksize, *outs)``; ``ksize``,
``stride``, ``pad`` and ``dilate`` are tuples with one entry per spatial axis
(:func:`as_tuple` expands an int). They run on any array module (a Python
loop over the kernel taps only).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena.utils import conv
from catena.utils.conv import get_conv_outsize, get_deconv_outsize

__all__ = [
    'as_tuple', 'col2im_nd', 'col2im_nd_cpu', 'col2im_nd_gpu', 'im2col_nd', 'im2col_nd_cpu',
    'get_conv_outsize', 'get_deconv_outsize', 'im2col_nd_gpu',
]


class _LengthError(ValueError, AssertionError):
    """A sequence of the wrong length (an AssertionError too, as Chainer raised)."""


def as_tuple(x: Any, n: int) -> tuple[Any, ...]:
    """Returns ``x`` as an ``n``-tuple: an int is repeated, a sequence must have length ``n``.

    Args:
        x: An int or a sequence of length ``n``.
        n: The length.

    Raises:
        ValueError: If a sequence of another length is given (the error is
            also an ``AssertionError``, which Chainer raised).

    .. admonition:: Example

        >>> from catena.utils import conv_nd
        >>> conv_nd.as_tuple(2, 3), conv_nd.as_tuple([1, 2], 2)
        ((2, 2, 2), (1, 2))
    """
    if isinstance(x, Sequence):
        x = tuple(x)
        if len(x) != n:
            raise _LengthError(f'expected an int or a sequence of length {n}; got {x!r}')
        return x
    return (x,) * n


def im2col_nd_cpu(img: Any, ksize: Sequence[int], stride: Sequence[int], pad: Sequence[int],
                  pval: Any = 0, cover_all: bool = False, dilate: Any = 1) -> Any:
    """Extracts the windows of an n-d convolution or pooling.

    Args:
        img: An array ``(n, c, *dims)``.
        ksize: The kernel size per spatial axis.
        stride: The stride per spatial axis.
        pad: The padding per spatial axis (both ends).
        pval: The value read in the padding (``-inf`` for max pooling).
        cover_all: See :func:`catena.utils.conv.get_conv_outsize`.
        dilate: The dilation (an int or one per spatial axis).

    Returns:
        A new array ``(n, c, *ksize, *outs)``.

    Raises:
        ValueError: If the kernel does not fit in the padded image.

    .. admonition:: Example

        >>> from catena.utils import conv_nd
        >>> img = np.arange(8.0).reshape(1, 1, 8)
        >>> conv_nd.im2col_nd_cpu(img, (3,), (3,), (1,))[0, 0]
        array([[0., 2., 5.],
               [0., 3., 6.],
               [1., 4., 7.]])
    """
    nd = img.ndim - 2
    return conv.im2col_nd_generic(img, as_tuple(ksize, nd), as_tuple(stride, nd),
                                  as_tuple(pad, nd), pval, cover_all, as_tuple(dilate, nd))


def im2col_nd_gpu(img: Any, ksize: Sequence[int], stride: Sequence[int], pad: Sequence[int],
                  cover_all: bool = False, dilate: Any = 1) -> Any:
    """Chainer's GPU spelling of :func:`im2col_nd_cpu` (the padding reads 0)."""
    return im2col_nd_cpu(img, ksize, stride, pad, 0, cover_all, dilate)


def im2col_nd(img: Any, ksize: Sequence[int], stride: Sequence[int], pad: Sequence[int],
              cover_all: bool = False, dilate: Any = 1) -> Any:
    """Extracts the windows of an n-d convolution (zero padding); see :func:`im2col_nd_cpu`."""
    return im2col_nd_cpu(img, ksize, stride, pad, 0, cover_all, dilate)


def col2im_nd_cpu(col: Any, stride: Sequence[int], pad: Sequence[int], dims: Sequence[int],
                  dilate: Any = 1) -> Any:
    """Sums columns ``(n, c, *ksize, *outs)`` back into an image ``(n, c, *dims)``.

    The adjoint of :func:`im2col_nd_cpu`: each column entry is added to the
    pixel it was read from; entries that read the padding are dropped.

    Args:
        col: An array ``(n, c, *ksize, *outs)``.
        stride: The stride per spatial axis.
        pad: The padding per spatial axis.
        dims: The spatial shape of the image.
        dilate: The dilation (an int or one per spatial axis).

    Returns:
        An array ``(n, c, *dims)`` (possibly a view into a padded buffer).

    Raises:
        ValueError: If ``col`` or a parameter does not match ``len(dims)``
            (also an ``AssertionError``, which Chainer raised).
    """
    nd = len(dims)
    if col.ndim != 2 + 2 * nd:
        raise _LengthError(f'col must have {2 + 2 * nd} dimensions (n, c, *ksize, *outs) for '
                           f'{nd} spatial dimensions; got shape {tuple(col.shape)}')
    return conv.col2im_nd_generic(col, as_tuple(stride, nd), as_tuple(pad, nd), tuple(dims),
                                  as_tuple(dilate, nd))


#: Chainer's GPU spelling of :func:`col2im_nd_cpu` (the generic path).
col2im_nd_gpu = col2im_nd_cpu
#: :func:`col2im_nd_cpu` under its device-neutral name.
col2im_nd = col2im_nd_cpu
