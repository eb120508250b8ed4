"""``MpiCommunicatorBase`` under ChainerMN's module name
(``chainermn.communicators.mpi_communicator_base``)."""

from catena.distributed.communicators.mpi_base import MpiCommunicatorBase

__all__ = ['MpiCommunicatorBase']
