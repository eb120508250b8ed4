"""``spatial_pyramid_pooling_2d``: max pooling at several grid sizes, concatenated."""

from __future__ import annotations

from typing import Any

from catena.functions.array.concat import concat
from catena.functions.array.reshape import reshape
from catena.functions.pooling import _roi
from catena.functions.pooling.max_pooling_2d import max_pooling_2d
from catena.variable import Variable


def spatial_pyramid_pooling_2d(x: Any, pyramid_height: int, pooling: str | None = None
                               ) -> Variable:
    """Spatial pyramid pooling function: a fixed-length feature from any image size.

    Level ``i`` (from 0) max-pools ``x`` into a grid of about ``2**i`` by
    ``2**i`` cells with kernel ``k = ceil(size / 2**i)``, stride ``k`` and
    padding ``(2**i * k - size) // 2`` on each axis (``cover_all=True``).
    Each level's result is flattened per sample, and the levels are
    concatenated in order. For inputs at least ``2**(pyramid_height - 1)``
    pixels high and wide, the output has
    ``C * (1 + 4 + ... + 4**(pyramid_height - 1))`` features.

    Args:
        x: Input of shape ``(N, C, H, W)``, floating point.
        pyramid_height: The number of pyramid levels (a positive int).
        pooling: The pooling of each cell; only ``'max'`` is supported (it
            must be given, as in Chainer).

    Returns:
        Variable: The features, of shape ``(N, F, 1, 1)``.

    Raises:
        ValueError: If ``pooling`` is not ``'max'``, ``x`` is not 4-D or
            ``pyramid_height`` is not positive (TypeError if not an int).

    See `Spatial Pyramid Pooling in Deep Convolutional Networks for Visual
    Recognition <https://arxiv.org/abs/1406.4729>`_.

    .. admonition:: Example

        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> F.spatial_pyramid_pooling_2d(x, 2, 'max').array.ravel()
        array([15.,  5.,  7., 13., 15.], dtype=float32)
    """
    if pooling != 'max':
        raise ValueError(f"pooling must be 'max' (the only pooling supported); got {pooling!r}")
    levels = _roi.positive_int(pyramid_height, 'pyramid_height')
    shape = tuple(x.shape)
    if len(shape) != 4:
        raise ValueError(f'x must be 4-dimensional (batch, channels, height, width); '
                         f'got shape {shape}')
    batch, _, height, width = shape
    ys = []
    for level in range(levels):
        bins = 2 ** level
        kernel_h, kernel_w = -(-height // bins), -(-width // bins)
        pad = ((kernel_h * bins - height) // 2, (kernel_w * bins - width) // 2)
        y = max_pooling_2d(x, (kernel_h, kernel_w), stride=None, pad=pad, cover_all=True)
        ys.append(reshape(y, (batch, -1, 1, 1)))
    return concat(ys, axis=1)
