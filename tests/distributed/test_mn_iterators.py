"""create_multi_node_iterator and create_synchronized_iterator: the same batches everywhere."""

import io

import numpy
import pytest
from tests.distributed import _helpers

import catena.distributed as dist
from catena import serializers
from catena.distributed.iterators import (
    create_multi_node_iterator,
    create_synchronized_iterator,
)
from catena.iterators import SerialIterator, ShuffleOrderSampler

DATASET = [(float(i) * 0.5, i) for i in range(11)]


@pytest.fixture(scope='module')
def comm(mpi_world):
    communicator = _helpers.make_communicator('naive', mpi_world)
    yield communicator
    communicator.finalize()


def _shuffling(batch_size, seed, repeat=True):
    sampler = ShuffleOrderSampler(numpy.random.RandomState(seed))
    return SerialIterator(DATASET, batch_size, repeat=repeat, order_sampler=sampler)


def _draw(iterator, n):
    return [next(iterator) for _ in range(n)]


def test_synchronized_iterators_draw_the_same_orders(comm):
    # A differently seeded order sampler on every rank.
    unsynchronized = _draw(_shuffling(3, 100 + comm.rank), 8)
    iterator = create_synchronized_iterator(_shuffling(3, 200 + comm.rank), comm)
    synchronized = _draw(iterator, 8)
    everyone = comm.allgather_obj((unsynchronized, synchronized, iterator.epoch))
    assert all(other[1] == synchronized for other in everyone)
    assert all(other[2] == iterator.epoch == 2 for other in everyone)
    assert any(other[0] != unsynchronized for other in everyone)  # the check can fail


def test_synchronized_iterator_needs_an_order_sampler(comm):
    with pytest.raises(ValueError, match='order_sampler'):
        create_synchronized_iterator(iter([]), comm)


@pytest.mark.parametrize('master_from_end', [False, True])
def test_multi_node_iterator_broadcasts_the_master_batches(comm, master_from_end):
    master = comm.size - 1 if master_from_end else 0
    if comm.rank == master:
        actual = _shuffling(4, 300 + comm.rank, repeat=False)
    else:
        actual = SerialIterator(dist.create_empty_dataset(DATASET[:3]), 2, repeat=False)
    iterator = create_multi_node_iterator(actual, comm, rank_master=master)
    seen = [(iterator.epoch, iterator.epoch_detail, iterator.batch_size, iterator.repeat)]
    batches = []
    for batch in iterator:
        batches.append(batch)
        seen.append((iterator.epoch, iterator.is_new_epoch, iterator.epoch_detail,
                     iterator.previous_epoch_detail, iterator.current_position))
    everyone = comm.allgather_obj((batches, seen))
    assert all(other == (batches, seen) for other in everyone)
    assert sorted(example for batch in batches for example in batch) == DATASET
    assert seen[0] == (0, 0.0, 4, False) and seen[-1][:2] == (1, True)


def test_multi_node_iterator_reset_and_serialize(comm):
    if comm.rank == 0:
        actual = SerialIterator(DATASET, 4, shuffle=False)
    else:
        actual = None
    iterator = create_multi_node_iterator(actual, comm)
    first = _draw(iterator, 4)
    saved = io.BytesIO()
    serializers.save_npz(saved, iterator)  # each rank saves its own state
    after_save = (_draw(iterator, 2), iterator.epoch_detail)
    saved.seek(0)
    serializers.load_npz(saved, iterator)
    restored = (iterator.epoch, iterator.current_position, iterator.epoch_detail)
    again = (_draw(iterator, 2), iterator.epoch_detail)
    iterator.reset()
    rewound = (iterator.epoch, iterator.epoch_detail)
    replay = _draw(iterator, 4)
    assert restored == (1, 5, 1 + 5 / 11)
    assert again == after_save
    assert rewound == (0, 0.0) and replay == first


def test_multi_node_iterator_checks_its_arguments(comm):
    with pytest.raises(ValueError, match='rank_master'):
        create_multi_node_iterator(None, comm, rank_master=comm.size)
    with pytest.raises(TypeError, match='communicator'):
        create_multi_node_iterator(SerialIterator(DATASET, 2), object())


class _FlatSaver(serializers.DictionarySerializer):
    def __getitem__(self, key):
        raise NotImplementedError


def test_every_rank_saves_what_a_plain_iterator_loads(comm):
    # The master's order changes at each epoch; the other ranks learn it.
    actual = _shuffling(4, 400) if comm.rank == 0 else None
    iterator = create_multi_node_iterator(actual, comm)
    drawn = _draw(iterator, 4)  # 16 of 11 examples: position 5 of epoch 1
    saver = _FlatSaver()
    iterator.serialize(saver)
    plain = SerialIterator(DATASET, 4, order_sampler=ShuffleOrderSampler())
    plain.serialize(serializers.NpzDeserializer(
        {key: numpy.asarray(value) for key, value in saver.target.items()}))
    rest = _draw(plain, 2)
    # Epoch 1: the last of batch 2, batch 3, then 5..8 and 9, 10 (then a fresh order).
    epoch_1 = drawn[2][-1:] + drawn[3] + rest[0] + rest[1][:2]
    everyone = comm.allgather_obj((sorted(saver.target), saver.target['order'].tolist(),
                                   epoch_1))
    assert sorted(saver.target) == ['current_position', 'epoch', 'is_new_epoch', 'order',
                                    'previous_epoch_detail']
    assert all(other == everyone[0] for other in everyone)
    assert sorted(epoch_1) == DATASET and (plain.epoch, plain.is_new_epoch) == (2, True)


def test_every_rank_loads_what_chainermn_ranks_saved(comm):
    actual = _shuffling(3, 500) if comm.rank == 0 else None
    iterator = create_multi_node_iterator(actual, comm)
    _draw(iterator, 2)
    reversed_order = iterator._order[::-1].copy()
    # ChainerMN's ranks saved neither epoch_detail nor previous_epoch_detail.
    snapshot = {'current_position': numpy.asarray(9), 'epoch': numpy.asarray(0),
                'is_new_epoch': numpy.asarray(False), 'order': reversed_order}
    iterator.serialize(serializers.NpzDeserializer(snapshot))
    state = (iterator.epoch, iterator.current_position, iterator.epoch_detail,
             iterator.previous_epoch_detail, iterator._order.tolist())
    batch = iterator.next()
    assert state == (0, 9, 9 / 11, 6 / 11, reversed_order.tolist())
    assert batch[:2] == [DATASET[i] for i in reversed_order[9:]]
