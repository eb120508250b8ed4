"""Filters for up- and downsampling: UpsamplingDeconvFilter and DownsamplingConvFilter."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.initializers._base import Initializer


def _linear_filter(size: int, ndim: int, normalize: bool) -> numpy.ndarray:
    """The separable tent (bilinear in 2-D) kernel of ``size`` along ``ndim`` axes."""
    factor = (size + 1) // 2
    center = factor - 1.0 if size % 2 == 1 else factor - 0.5
    tent = 1.0 - numpy.abs(numpy.arange(size) - center) / factor
    kernel = numpy.ones((), dtype=numpy.float64)
    for _ in range(ndim):
        kernel = numpy.multiply.outer(kernel, tent)
    if normalize:
        kernel /= kernel.sum()
    return kernel


class _SamplingFilter(Initializer):
    """Puts a linear interpolation kernel on each channel's diagonal entry."""

    _normalize = False

    def __init__(self, interpolation: str = 'linear', dtype: Any = None) -> None:
        if interpolation != 'linear':
            raise ValueError(f"{type(self).__name__}: interpolation must be 'linear'; "
                             f'got {interpolation!r}')
        super().__init__(dtype)
        self.interpolation = interpolation

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        name = type(self).__name__
        shape = array.shape
        if len(shape) < 3:
            raise ValueError(f'{name}: shape {shape} is not (channels, channels or 1, k, ...)')
        channels, second = shape[:2]
        if second not in (channels, 1):
            raise ValueError(f'{name}: the first two axes of shape {shape} must be equal, '
                             f'or the second must be 1')
        ksizes = set(shape[2:])
        if len(ksizes) != 1:
            raise ValueError(f'{name}: the kernel sizes in shape {shape} must be all the same')
        kernel = _linear_filter(shape[2], len(shape) - 2, self._normalize)
        xp = backend.get_array_module(array)
        array[...] = 0
        channel = xp.arange(channels)
        array[channel, channel if second == channels else 0] = xp.asarray(kernel)


class UpsamplingDeconvFilter(_SamplingFilter):
    """Fills a deconvolution weight with a linear upsampling kernel (Long et al., 2015).

    The weight, of shape ``(channels, channels, k, ..., k)`` (or with 1 as the
    second axis), gets the tent kernel ``prod_d (1 - |i_d - c| / f)`` with
    ``f = (k + 1) // 2`` and ``c`` the kernel centre on each channel's
    diagonal entry and zeros elsewhere. Use it with a stride of ``f``.

    Args:
        interpolation: The interpolation; only ``'linear'``.
        dtype: The dtype the initializer produces.
    """


class DownsamplingConvFilter(_SamplingFilter):
    """Fills a convolution weight with a linear downsampling kernel.

    As :class:`UpsamplingDeconvFilter`, but the kernel is normalized to sum
    to 1 so that the convolution averages.

    Args:
        interpolation: The interpolation; only ``'linear'``.
        dtype: The dtype the initializer produces.
    """

    _normalize = True
