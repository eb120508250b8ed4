"""ChainerMN's ``NonCudaAwareCommunicator``, which catena does not have (importable only)."""

from catena.distributed.communicators import _HINTS
from catena.distributed.communicators._unavailable import unavailable_communicator

NonCudaAwareCommunicator = unavailable_communicator(
    'non_cuda_aware', 'NonCudaAwareCommunicator', _HINTS['non_cuda_aware'],
    NotImplementedError)

__all__ = ['NonCudaAwareCommunicator']
