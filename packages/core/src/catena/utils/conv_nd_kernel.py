"""Chainer's ``chainer.utils.conv_nd_kernel``: generators of n-d im2col/col2im GPU kernels.

The core runs n-d convolutions through :mod:`catena.utils.conv_nd` on any
array module, so it ships no CUDA source. A GPU plugin that wants dedicated
kernels subclasses these generators and implements ``_generate``;
:meth:`~NDKernelGenerator.generate` memoizes the result per dimensionality.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

__all__ = ['Col2imNDKernel', 'Im2colNDKernel', 'NDKernelGenerator']


class NDKernelGenerator:
    """Builds the source of an n-d kernel once per number of spatial dimensions."""

    _memo: ClassVar[dict[tuple[type, int], Any]]
    _lock = threading.Lock()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._memo = {}

    @classmethod
    def generate(cls, ndim: int) -> Any:
        """Returns the kernel for ``ndim`` spatial dimensions, built on the first call.

        Args:
            ndim: The number of spatial dimensions.

        Returns:
            Whatever ``_generate`` returns (for CUDA plugins, the
            ``(in_params, out_params, operation, name)`` of an elementwise
            kernel).
        """
        key = (cls, ndim)
        with cls._lock:
            if key not in cls._memo:
                cls._memo[key] = cls._generate(ndim)
            return cls._memo[key]

    @classmethod
    def clear_memo(cls) -> None:
        """Forgets the kernels built so far."""
        with cls._lock:
            cls._memo.clear()

    @classmethod
    def _generate(cls, ndim: int) -> Any:
        raise NotImplementedError(
            f'{cls.__name__} has no kernel source in the core: n-d im2col/col2im run on any '
            'array module through catena.utils.conv_nd; a GPU plugin may subclass it and '
            'implement _generate')


class Im2colNDKernel(NDKernelGenerator):
    """The generator of the n-d im2col kernel."""


class Col2imNDKernel(NDKernelGenerator):
    """The generator of the n-d col2im kernel."""
