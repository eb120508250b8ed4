"""``CommunicatorBase`` under ChainerMN's module name
(``chainermn.communicators.communicator_base``)."""

from catena.distributed.communicators.base import CommunicatorBase

__all__ = ['CommunicatorBase']
