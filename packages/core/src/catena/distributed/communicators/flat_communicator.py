"""``FlatCommunicator`` under ChainerMN's module name
(``chainermn.communicators.flat_communicator``)."""

from catena.distributed.communicators.flat import FlatCommunicator

__all__ = ['FlatCommunicator']
