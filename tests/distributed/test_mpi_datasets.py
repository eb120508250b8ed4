"""scatter_dataset and scatter_index over MPI: every example lands somewhere, none is lost."""

import collections

import numpy
import pytest
from tests.distributed import _helpers

import catena.distributed as dist


@pytest.fixture
def comm(mpi_world):
    communicator = _helpers.make_communicator('naive', mpi_world)
    yield communicator
    communicator.finalize()


def expected_order(n, shuffle, seed):
    return numpy.random.RandomState(seed).permutation(n) if shuffle else numpy.arange(n)


@pytest.mark.parametrize('n', [0, 1, 5, 12, 13])
@pytest.mark.parametrize('shuffle', [False, True])
@pytest.mark.parametrize('root_from_end', [False, True])
def test_without_equal_length_the_parts_tile_the_dataset(comm, n, shuffle, root_from_end):
    root = comm.size - 1 if root_from_end else 0
    dataset = [f'example {i}' for i in range(n)] if comm.rank == root else None
    part = dist.scatter_dataset(dataset, comm, root=root, shuffle=shuffle, seed=7,
                                force_equal_length=False)
    parts = comm.allgather_obj([part[i] for i in range(len(part))])
    joined = [example for p in parts for example in p]
    assert joined == [f'example {i}' for i in expected_order(n, shuffle, 7)]
    assert max(map(len, parts)) - min(map(len, parts)) <= 1


@pytest.mark.parametrize('n', [0, 1, 5, 12, 13])
@pytest.mark.parametrize('shuffle', [False, True])
def test_equal_length_pads_by_repeating_examples(comm, n, shuffle):
    dataset = list(range(n)) if comm.rank == 0 else None
    part = dist.scatter_dataset(dataset, comm, shuffle=shuffle, seed=3)
    parts = comm.allgather_obj(list(part))
    length = -(-n // comm.size)
    order = list(expected_order(n, shuffle, 3))
    assert all(len(p) == length for p in parts)
    counts = collections.Counter(example for p in parts for example in p)
    assert set(counts) == set(range(n))  # nothing lost
    assert sum(counts.values()) - n == length * comm.size - n  # the padding only
    for p in parts:  # each part is a run of consecutive positions of the order
        if p:
            start = order.index(p[0])
            assert p == order[start:start + len(p)]


def test_shuffle_follows_the_seed(comm):
    parts = [comm.allgather_obj(list(dist.scatter_dataset(
        list(range(20)) if comm.rank == 0 else None, comm, shuffle=True, seed=seed)))
        for seed in (11, 11, 12)]
    assert parts[0] == parts[1]
    assert parts[0] != parts[2]


def test_scatter_index_uses_the_roots_count(comm):
    root = comm.size - 1
    count = 10 if comm.rank == root else -1  # the others' value is ignored
    exact = comm.allgather_obj(dist.scatter_index(count, comm, root=root,
                                                  force_equal_length=False))
    padded = comm.allgather_obj(dist.scatter_index(count, comm, root=root))
    assert exact[0][0] == 0 and exact[-1][1] == 10
    assert all(exact[i][1] == exact[i + 1][0] for i in range(comm.size - 1))
    sizes = [end - begin for begin, end in exact]  # as ChainerMN: the first ranks take more
    assert sizes == sorted(sizes, reverse=True) and max(sizes) - min(sizes) <= 1
    assert all(end - begin == -(-10 // comm.size) and end <= 10 for begin, end in padded)
    assert [begin for begin, _ in padded] == [10 * i // comm.size for i in range(comm.size)]


def test_a_missing_dataset_on_the_root_raises_everywhere(comm):
    with pytest.raises(ValueError, match='root must pass a dataset'):
        dist.scatter_dataset(None, comm)


def test_create_empty_dataset(comm):
    part = dist.scatter_dataset(list(range(9)) if comm.rank == 0 else None, comm)
    empty = dist.create_empty_dataset(part)
    assert empty == [()] * len(part)
