"""Iterators save and load through a serializer without children (no ``serializer[key]``).

The base classes of the serialization protocol leave ``__getitem__`` out
(it raises NotImplementedError), so a serializer may be flat; the iterators
then save their position, epoch and order and skip the order sampler's state.
"""

import numpy
import pytest

from catena.iterators import MultiprocessIterator, SerialIterator
from catena.serializer import Deserializer, Serializer


class FlatSaver(Serializer):
    def __init__(self, target):
        self.target = target

    def __call__(self, key, value):
        self.target[key] = value
        return value


class FlatLoader(Deserializer):
    def __init__(self, target):
        self.target = target

    def __call__(self, key, value):
        stored = self.target[key]
        if isinstance(value, numpy.ndarray):
            numpy.copyto(value, stored)
            return value
        return type(value)(numpy.asarray(stored))


@pytest.mark.parametrize('make', [
    lambda data: SerialIterator(data, 2),
    lambda data: MultiprocessIterator(data, 2, n_processes=1),
], ids=['serial', 'multiprocess'])
def test_an_epoch_continues_after_a_flat_round_trip(make):
    data = list(range(6))
    source = make(data)
    first = next(source) + next(source)
    target = {}
    source.serialize(FlatSaver(target))
    restored = make(data)
    restored.serialize(FlatLoader(target))
    last = next(restored)
    source.finalize()
    restored.finalize()
    assert {'current_position', 'epoch', 'is_new_epoch', 'order'} <= set(target)
    assert sorted(first + last) == data
    assert restored.is_new_epoch and restored.epoch == 1
