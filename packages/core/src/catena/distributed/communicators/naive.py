"""The ``naive`` communicator: one MPI call per parameter, no packing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena.distributed.communicators.base import check_not_diverged, grads_to_average
from catena.distributed.communicators.mpi_base import MpiCommunicatorBase


class NaiveCommunicator(MpiCommunicatorBase):
    """Averages gradients and broadcasts parameters one array at a time.

    Each gradient is summed in place with its own MPI call (after the division
    by the number of ranks): simple, with the least memory, and the baseline
    that the packing of the ``flat`` communicator improves on when a model has
    many small parameters. Works on CPU arrays, and on device arrays through
    CUDA-aware MPI (or host staging otherwise).

    Args: see :class:`MpiCommunicatorBase`.
    """

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        grads = grads_to_average(model, zero_fill)
        self._mean_grad_arrays(grads)
        check_not_diverged(grads)

    def _mean_grad_arrays(self, grads: Sequence[Any]) -> None:
        scale = 1.0 / self.size
        for grad in grads:
            self._mean_in_place(grad, scale)
