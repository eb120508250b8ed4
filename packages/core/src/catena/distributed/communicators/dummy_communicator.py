"""``DummyCommunicator`` under ChainerMN's module name
(``chainermn.communicators.dummy_communicator``)."""

from catena.distributed.communicators.dummy import DummyCommunicator

__all__ = ['DummyCommunicator']
