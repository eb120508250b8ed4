"""``NaiveCommunicator`` under ChainerMN's module name
(``chainermn.communicators.naive_communicator``)."""

from catena.distributed.communicators.naive import NaiveCommunicator

__all__ = ['NaiveCommunicator']
