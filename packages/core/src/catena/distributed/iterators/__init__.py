"""Iterators that give every rank the same batches (ChainerMN's ``chainermn.iterators``).

:func:`create_multi_node_iterator` lets one rank (the master) iterate and
broadcasts each of its batches; :func:`create_synchronized_iterator` makes
every rank's own iterator draw the same orders.
"""

from catena.distributed.iterators.multi_node_iterator import create_multi_node_iterator
from catena.distributed.iterators.synchronized_iterator import create_synchronized_iterator

__all__ = ['create_multi_node_iterator', 'create_synchronized_iterator']
