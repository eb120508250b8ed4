"""Data parallelism over GPU worker processes with NCCL (not implemented yet)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena.dataset import convert
from catena.training.updater import Updater


class MultiprocessParallelUpdater(Updater):
    """One worker process per GPU, gradients all-reduced with NCCL (not implemented).

    catena does not implement this updater yet: it needs NCCL communicators
    from catena-cuda. Use :class:`ParallelUpdater` inside one process, or
    ``catena.distributed`` (MPI) across processes.

    Args:
        iterators: One iterator per device.
        optimizer: The optimizer.
        converter: The converter.
        devices: The GPUs.
        auto_new_epoch: Whether to count epochs on the optimizer.
    """

    def __init__(self, iterators: Any, optimizer: Any,
                 converter: Callable[..., Any] = convert.concat_examples,
                 devices: Any = None, auto_new_epoch: bool = True) -> None:
        raise NotImplementedError(
            'MultiprocessParallelUpdater is not implemented in catena yet (it needs NCCL '
            'from catena-cuda); use ParallelUpdater for several devices in one process, or '
            'catena.distributed for several processes')

    @staticmethod
    def available() -> bool:
        """Whether this updater can run here (never, for now)."""
        return False
