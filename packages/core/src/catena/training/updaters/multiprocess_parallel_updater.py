"""Data parallelism over GPU worker processes with NCCL (not implemented)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena.dataset import convert
from catena.training.updater import Updater


class MultiprocessParallelUpdater(Updater):
    """One worker process per GPU, gradients all-reduced with NCCL (not implemented).

    catena does not implement this updater. The same training, one process
    per GPU with gradients averaged over NCCL, is ``catena.distributed``
    with the ``pure_nccl`` communicator of catena-cuda, started with
    ``mpiexec``; inside one process, :class:`ParallelUpdater` uses several
    devices.

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
            'MultiprocessParallelUpdater is not implemented in catena; for one process per '
            'GPU use catena.distributed with create_communicator("pure_nccl") (catena-cuda) '
            'under mpiexec, or ParallelUpdater for several devices in one process')

    @staticmethod
    def available() -> bool:
        """Whether this updater can run here (never: it is not implemented)."""
        return False
