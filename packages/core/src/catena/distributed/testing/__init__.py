"""Testing helpers under ChainerMN's names (``chainermn.testing``)."""

from catena.distributed.testing.device import get_device

__all__ = ['get_device']
