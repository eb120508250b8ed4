"""Chainer's CUDA source generators for N-d pooling (``pooling_nd_kernel``).

Chainer wrote the CUDA C of its N-d max and average pooling kernels here and
memoized it per number of spatial dimensions. catena's N-d pooling runs on
whatever array module the device has (catena-cuda brings its own GPU
kernels), so it generates no CUDA source: the names exist for code that
imports them, and generating raises NotImplementedError.
"""

from __future__ import annotations

from typing import NoReturn

_WHY = ('catena generates no CUDA source for N-d pooling: it pools with the array module of '
        "the input's device (docs/compat.md, Functions)")


class PoolingNDKernelForward:
    """Chainer's generator of the forward N-d pooling kernel (not provided)."""

    @classmethod
    def generate(cls, ndim: int) -> NoReturn:
        """Raises NotImplementedError: see the module's documentation."""
        raise NotImplementedError(f'{cls.__name__}.generate({ndim!r}): {_WHY}')


class PoolingNDKernelBackward(PoolingNDKernelForward):
    """Chainer's generator of the backward N-d pooling kernel (not provided)."""


__all__ = ['PoolingNDKernelBackward', 'PoolingNDKernelForward']
