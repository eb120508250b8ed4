"""``DaliIterator``: Chainer's iterator over an NVIDIA DALI pipeline (not provided)."""

from __future__ import annotations

from typing import Any, NoReturn

from catena.dataset import iterator

__all__ = ['DaliIterator']


class DaliIterator(iterator.Iterator):
    """Chainer's iterator over an NVIDIA DALI pipeline; catena does not provide it.

    NVIDIA DALI runs its pipelines on CUDA GPUs only, and no catena plugin
    wraps it. Load and augment data with :class:`SerialIterator`,
    :class:`MultiprocessIterator` or :class:`MultithreadIterator` over a
    :class:`~catena.datasets.TransformDataset` instead.

    Args:
        pipeline: A DALI pipeline (Chainer's signature).
        repeat: Whether to repeat the data (Chainer's signature).

    Raises:
        NotImplementedError: Always, with the reason and the alternatives.
    """

    def __init__(self, pipeline: Any, repeat: bool = True) -> NoReturn:
        raise NotImplementedError(
            'catena does not provide DaliIterator: NVIDIA DALI runs on CUDA GPUs only and no '
            'catena plugin wraps it; use SerialIterator, MultiprocessIterator or '
            'MultithreadIterator over a TransformDataset instead')
