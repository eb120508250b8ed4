"""Batch normalization over the global batch of all ranks (MultiNodeBatchNormalization)."""

from __future__ import annotations

from typing import Any

from catena.distributed.communicators.base import CommunicatorBase
from catena.distributed.communicators.dummy import DummyCommunicator
from catena.distributed.communicators.flat import FlatCommunicator
from catena.distributed.communicators.mpi_base import MpiCommunicatorBase
from catena.distributed.communicators.naive import NaiveCommunicator
from catena.distributed.functions.batch_normalization import (
    Allreduce,
    multi_node_batch_normalization,
)
from catena.distributed.links._sharing import SharesCommunicatorOnCopy
from catena.links.normalization.batch_normalization import BatchNormalization
from catena.variable import Variable

COMMUNICATION_BACKENDS = ('auto', 'mpi', 'nccl')


def allreduce_for(comm: CommunicatorBase, communication_backend: str) -> Allreduce:
    """The sum over ranks that ``communication_backend`` selects for ``comm``.

    ``'auto'`` uses the communicator's own ``allreduce``; ``'mpi'`` the MPI
    one (for MPI communicators, and the dummy one); ``'nccl'`` requires a
    communicator that is not one of the built-in CPU ones (``pure_nccl`` of
    catena-cuda) and uses its ``allreduce``.

    Raises:
        ValueError: For an unknown backend, or one ``comm`` cannot use.
    """
    if communication_backend not in COMMUNICATION_BACKENDS:
        raise ValueError(f'communication_backend must be one of {COMMUNICATION_BACKENDS}, got '
                         f'{communication_backend!r}')
    if communication_backend == 'mpi':
        if isinstance(comm, MpiCommunicatorBase):
            return lambda x: MpiCommunicatorBase.allreduce(comm, x)
        if isinstance(comm, DummyCommunicator):
            return comm.allreduce
        raise ValueError(f"communication_backend='mpi' needs an MPI communicator, got "
                         f'{type(comm).__name__}')
    if communication_backend == 'nccl' and \
            type(comm) in (NaiveCommunicator, FlatCommunicator, DummyCommunicator):
        raise ValueError(f"communication_backend='nccl' needs an NCCL communicator (pure_nccl "
                         f'from catena-cuda), got {type(comm).__name__}; use "auto" or "mpi"')
    return comm.allreduce


class MultiNodeBatchNormalization(SharesCommunicatorOnCopy, BatchNormalization):
    """Batch normalization whose batch statistics cover the batches of all ranks.

    Plain :class:`~catena.links.BatchNormalization` normalizes each rank's
    batch with its own statistics, which are noisy when the per-rank batch
    is small. In training mode this link all-reduces the per-channel counts,
    sums and sums of squares, so every rank normalizes with the mean and
    variance of the global batch, and the running averages follow the
    global statistics (the variance unbiased over the global count). The
    backward pass all-reduces the gradient sums: the gradient of each rank's
    input is that of one batch normalization over the global batch, and the
    gradients of ``gamma`` and ``beta`` are the global ones divided by the
    number of ranks (identical on every rank, as averaging the ranks'
    gradients leaves them). Ranks may have batches of different sizes.

    In test mode it normalizes with the running averages, without
    communicating. Every rank must call it in training mode the same number
    of times, with the same channel shape. Double backprop is not supported.

    Args:
        size: The shape of the channel dimensions (an int or a tuple), or
            None to infer it from the first input (then ``axis`` is needed).
        comm: The communicator of the ranks that share the statistics.
        decay: The decay rate of the running averages.
        eps: Added to the variance for numerical stability.
        dtype: The dtype of the parameters and statistics (None follows
            ``catena.config.dtype``).
        use_gamma: Whether the link has the scale parameter ``gamma``.
        use_beta: Whether the link has the shift parameter ``beta``.
        initial_gamma: The initializer of ``gamma`` (default 1).
        initial_beta: The initializer of ``beta`` (default 0).
        communication_backend: ``'auto'`` (the communicator's own
            ``allreduce``), ``'mpi'`` or ``'nccl'``.
        axis: The axes to reduce, as in
            :class:`~catena.links.BatchNormalization` (a catena addition).
    """

    def __init__(self, size: Any, comm: CommunicatorBase, decay: float = 0.9,
                 eps: float = 2e-5, dtype: Any = None, use_gamma: bool = True,
                 use_beta: bool = True, initial_gamma: Any = None, initial_beta: Any = None,
                 communication_backend: str = 'auto', *, axis: Any = None) -> None:
        if not isinstance(comm, CommunicatorBase):
            raise TypeError(f'comm must be a catena.distributed communicator, got '
                            f'{type(comm).__name__}')
        allreduce_for(comm, communication_backend)  # checks the backend now
        super().__init__(size, decay, eps, dtype, use_gamma, use_beta, initial_gamma,
                         initial_beta, axis=axis)
        self.comm = comm
        self.communication_backend = communication_backend

    def _normalize_batch(self, x: Any, gamma: Any, beta: Any, running_mean: Any,
                         running_var: Any, decay: float) -> Variable:
        """Normalizes with the statistics of the global batch (all ranks' inputs)."""
        return multi_node_batch_normalization(
            x, gamma, beta, allreduce_for(self.comm, self.communication_backend),
            self.comm.size, eps=self.eps, running_mean=running_mean, running_var=running_var,
            decay=decay, axis=self.axis)
