import numpy
import pytest

from catena.iterators import OrderSampler, SerialIterator, ShuffleOrderSampler
from catena.serializers import DictionarySerializer, NpzDeserializer


def ids(batch):
    return [int(x) for x in batch]


def test_no_shuffle_repeat():
    it = SerialIterator(list(range(5)), 2, shuffle=False)
    assert it.previous_epoch_detail is None
    assert ids(it.next()) == [0, 1]
    assert it.epoch == 0 and not it.is_new_epoch and it.epoch_detail == pytest.approx(0.4)
    assert ids(it.next()) == [2, 3]
    assert ids(it.next()) == [4, 0]
    assert it.epoch == 1 and it.is_new_epoch
    assert it.epoch_detail == pytest.approx(1.2)
    assert it.previous_epoch_detail == pytest.approx(0.8)
    assert ids(it.next()) == [1, 2]
    assert not it.is_new_epoch
    assert it.repeat


def test_no_repeat_stops_with_partial_batch():
    it = SerialIterator(list(range(5)), 2, repeat=False, shuffle=False)
    batches = [ids(b) for b in it]
    assert batches == [[0, 1], [2, 3], [4]]
    assert it.epoch == 1 and it.is_new_epoch
    with pytest.raises(StopIteration):
        it.next()
    it.reset()
    assert ids(it.next()) == [0, 1]


def test_batch_larger_than_dataset():
    it = SerialIterator([0, 1, 2], 7, shuffle=False)
    assert ids(it.next()) == [0, 1, 2, 0, 1, 2, 0]
    assert it.epoch == 2 and it.current_position == 1


def test_shuffle_covers_each_epoch():
    numpy.random.seed(0)  # noqa: NPY002
    it = SerialIterator(list(range(7)), 3)
    seen = []
    for _ in range(7):
        seen.extend(ids(it.next()))
    for epoch in range(3):
        assert sorted(seen[7 * epoch:7 * (epoch + 1)]) == list(range(7))


def test_shuffle_reproducible_under_numpy_seed():
    def run():
        numpy.random.seed(42)  # noqa: NPY002
        it = SerialIterator(list(range(10)), 4, shuffle=True)
        return [ids(it.next()) for _ in range(5)]

    assert run() == run()


def test_custom_order_sampler():
    class Reverse(OrderSampler):
        def __call__(self, current_order, current_position):
            return numpy.arange(len(current_order))[::-1]

    it = SerialIterator(list(range(4)), 3, order_sampler=Reverse())
    assert ids(it.next()) == [3, 2, 1]
    with pytest.raises(ValueError, match='shuffle'):
        SerialIterator([1], 1, shuffle=True, order_sampler=Reverse())


def test_bad_order_sampler_and_arguments():
    with pytest.raises(ValueError, match='1-D'):
        SerialIterator([1, 2, 3], 2, order_sampler=lambda o, p: [[0, 1]])
    with pytest.raises(ValueError, match='integer'):
        SerialIterator([1, 2, 3], 2, order_sampler=lambda o, p: [0.5, 1.0])
    with pytest.raises(ValueError, match='empty'):
        SerialIterator([1, 2, 3], 2, order_sampler=lambda o, p: [])
    lengths = iter([3, 2])
    it = SerialIterator([1, 2, 3], 3, order_sampler=lambda o, p: numpy.arange(next(lengths)))
    with pytest.raises(ValueError, match='epoch size must stay the same'):
        it.next()
    with pytest.raises(ValueError, match='batch_size'):
        SerialIterator([1], 0)
    with pytest.raises(ValueError, match='empty'):
        SerialIterator([], 2).next()
    assert list(SerialIterator([], 2, repeat=False)) == []


def test_shuffle_order_sampler_generators():
    for rng in (numpy.random.RandomState(0), numpy.random.default_rng(0)):
        order = ShuffleOrderSampler(rng)(numpy.arange(6), 0)
        assert sorted(order.tolist()) == list(range(6))


def test_order_longer_than_dataset():
    it = SerialIterator([1, 2, 3], 2, order_sampler=lambda o, p: numpy.repeat(numpy.arange(3), 2))
    batches = [it.next() for _ in range(3)]
    assert sorted(sum(batches, [])) == [1, 1, 2, 2, 3, 3]
    assert it.is_new_epoch and it.epoch == 1
    assert it.epoch_detail == pytest.approx(1.0)
    assert it.previous_epoch_detail == pytest.approx(4 / 6)


def test_load_older_snapshot_keys():
    it = SerialIterator(list(range(6)), 2)
    it.next()
    it.next()
    target = {}
    it.serialize(DictionarySerializer(target))
    target['_order'] = target.pop('order')
    del target['previous_epoch_detail']
    restored = SerialIterator(list(range(6)), 2)
    restored.serialize(NpzDeserializer(target))
    assert restored.epoch_detail == pytest.approx(4 / 6)
    assert restored.previous_epoch_detail == pytest.approx(2 / 6)
    numpy.testing.assert_array_equal(restored._state.order, it._state.order)
