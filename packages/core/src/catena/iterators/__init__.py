"""Dataset iterators and order samplers (``catena.iterators``)."""

from __future__ import annotations

from catena.iterators.dali_iterator import DaliIterator
from catena.iterators.multiprocess_iterator import MultiprocessIterator
from catena.iterators.multithread_iterator import MultithreadIterator
from catena.iterators.order_samplers import OrderSampler, ShuffleOrderSampler
from catena.iterators.serial_iterator import SerialIterator

__all__ = [
    'DaliIterator', 'MultiprocessIterator', 'MultithreadIterator', 'OrderSampler',
    'SerialIterator', 'ShuffleOrderSampler',
]
