"""Iterators that draw the same orders on every rank (ChainerMN's
``chainermn.iterators.synchronized_iterator``)."""

from __future__ import annotations

from typing import Any

from catena.distributed.communicators.base import CommunicatorBase
from catena.distributed.iterators.multi_node_iterator import _check_communicator


def create_synchronized_iterator(actual_iterator: Any, communicator: CommunicatorBase) -> Any:
    """Makes every rank's iterator visit its dataset in rank 0's orders.

    Rank 0's order sampler (with its random state) is broadcast and
    replaces every rank's, and the iterators are reset, so that each rank
    draws the same sequence of orders, and so the same batches when the
    datasets are the same, without any communication per batch. The
    sampler must be picklable and deterministic given its state (the
    built-in :class:`~catena.iterators.ShuffleOrderSampler` is); when rank 0
    does not shuffle (no sampler), no rank does. Creating the iterator is a
    collective call.

    Args:
        actual_iterator: An iterator with an ``order_sampler`` attribute
            (:class:`~catena.iterators.SerialIterator`,
            :class:`~catena.iterators.MultiprocessIterator`...).
        communicator: The communicator.

    Returns:
        ``actual_iterator``, synchronized.
    """
    comm = _check_communicator(communicator)
    if not hasattr(actual_iterator, 'order_sampler'):
        raise ValueError(f'actual_iterator must have an order_sampler attribute (as '
                         f'SerialIterator and MultiprocessIterator do), got '
                         f'{type(actual_iterator).__name__}')
    actual_iterator.order_sampler = comm.bcast_obj(actual_iterator.order_sampler, root=0)
    actual_iterator.reset()
    return actual_iterator
