"""``PureNcclCommunicator`` under ChainerMN's module name.

It is the class a plugin registers as ``'pure_nccl'`` (catena-cuda's), or,
without such a plugin, a stand-in that can be imported and compared but not
created.
"""

from __future__ import annotations

from typing import Any

from catena.distributed.communicators import _HINTS, _plugin_communicators
from catena.distributed.communicators._unavailable import unavailable_communicator


def _find() -> Any:
    factory = _plugin_communicators().get('pure_nccl')
    if isinstance(factory, type):
        return factory
    return unavailable_communicator('pure_nccl', 'PureNcclCommunicator', _HINTS['pure_nccl'])


PureNcclCommunicator = _find()

__all__ = ['PureNcclCommunicator']
