import copy
import functools

import numpy
import pytest

from catena.datasets import TupleDataset
from catena.iterators import (
    MultiprocessIterator,
    MultithreadIterator,
    SerialIterator,
    ShuffleOrderSampler,
)


class DictSerializer:
    def __init__(self, target=None, path=''):
        self.target = {} if target is None else target
        self.path = path

    def __getitem__(self, key):
        return DictSerializer(self.target, self.path + key + '/')

    def __call__(self, key, value):
        self.target[self.path + key] = copy.deepcopy(value)
        return value


class DictDeserializer:
    """Copies into arrays in place and returns other values, as NpzDeserializer does."""

    def __init__(self, target, path=''):
        self.target = target
        self.path = path

    def __getitem__(self, key):
        return DictDeserializer(self.target, self.path + key + '/')

    def __call__(self, key, value):
        stored = self.target[self.path + key]
        if isinstance(value, numpy.ndarray):
            numpy.copyto(value, stored)
            return value
        return copy.deepcopy(stored)


DATA = TupleDataset(numpy.arange(13, dtype=numpy.int64), numpy.arange(13, dtype=numpy.float32))

FACTORIES = {
    'serial': SerialIterator,
    'thread': functools.partial(MultithreadIterator, n_threads=2),
    'process': functools.partial(MultiprocessIterator, n_processes=2, n_prefetch=2),
}


def ids(batch):
    return [int(x[0]) for x in batch]


def make(kind, shuffle, seed, sampler_kind='legacy'):
    if shuffle and sampler_kind == 'generator':
        sampler = ShuffleOrderSampler(numpy.random.default_rng(seed))
        return FACTORIES[kind](DATA, 5, order_sampler=sampler)
    numpy.random.seed(seed)  # noqa: NPY002
    return FACTORIES[kind](DATA, 5, shuffle=shuffle)


@pytest.mark.parametrize('kind', sorted(FACTORIES))
@pytest.mark.parametrize('shuffle,sampler_kind', [
    (False, 'legacy'), (True, 'legacy'), (True, 'generator')])
def test_mid_epoch_round_trip(kind, shuffle, sampler_kind):
    original = make(kind, shuffle, 0, sampler_kind)
    restored = make(kind, shuffle, 99, sampler_kind)
    try:
        for _ in range(4):  # ends mid-epoch (20 of 26 examples)
            original.next()
        assert 0 < original.current_position < len(DATA)
        saved = DictSerializer()
        original.serialize(saved)
        assert {'current_position', 'epoch', 'is_new_epoch', 'previous_epoch_detail'} <= set(
            saved.target)
        assert ('order' in saved.target) == shuffle
        expected = [ids(original.next()) for _ in range(8)]  # crosses 3 epoch boundaries
        restored.serialize(DictDeserializer(saved.target))
        assert restored.epoch == 1
        assert restored.epoch_detail == pytest.approx(20 / 13)
        assert restored.previous_epoch_detail == pytest.approx(15 / 13)
        assert [ids(restored.next()) for _ in range(8)] == expected
    finally:
        original.finalize()
        restored.finalize()


@pytest.mark.parametrize('kind', ['thread', 'process'])
def test_saving_does_not_change_the_stream(kind):
    reference = make('serial', True, 3)
    it = make(kind, True, 3)
    try:
        for step in range(9):
            if step % 2:
                it.serialize(DictSerializer())
            assert ids(it.next()) == ids(reference.next())
    finally:
        it.finalize()


def test_snapshot_without_sampler_state_loads():
    it = SerialIterator(list(range(6)), 4, shuffle=False)
    it.serialize(DictDeserializer({'current_position': 4, 'epoch': 2, 'is_new_epoch': False}))
    assert it.epoch == 2 and it.current_position == 4
    # Without previous_epoch_detail (older snapshots) it is one batch back.
    assert it.previous_epoch_detail == 2.0
    assert [int(v) for v in it.next()] == [4, 5, 0, 1]
    it = SerialIterator(list(range(6)), 4, shuffle=False)
    it.serialize(DictDeserializer({'current_position': 0, 'epoch': 0, 'is_new_epoch': False}))
    assert it.previous_epoch_detail is None
