"""``catena.initializer``: the Initializer base class and ``get_fans``, where Chainer has them.

The implementations live in :mod:`catena.initializers`.
"""

from __future__ import annotations

from catena.initializers._base import Initializer, get_fans

__all__ = ['Initializer', 'get_fans']
