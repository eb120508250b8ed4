"""create_multi_node_evaluator and GenericMultiNodeEvaluator."""

import numpy
import pytest
from tests.distributed import _helpers
from tests.distributed._helpers import data_of

import catena
import catena.distributed as dist
from catena.distributed.evaluator import (
    GenericMultiNodeEvaluator,
    create_multi_node_evaluator,
)
from catena.iterators import SerialIterator
from catena.training.extensions import Evaluator


def _shard(rank):
    # Shards of different sizes: 5, 6, 7... examples.
    return [numpy.float64(v) for v in data_of(rank, (5 + rank,), salt=1)]


def _batch_means(values, batch_size):
    return [numpy.mean(values[i:i + batch_size]) for i in range(0, len(values), batch_size)]


class _Reporter(catena.Link):
    def forward(self, x):
        catena.report({'value': x.mean(), 'square': (x * x).mean()}, self)


@pytest.fixture(scope='module')
def comm(mpi_world):
    communicator = _helpers.make_communicator('naive', mpi_world)
    yield communicator
    communicator.finalize()


def test_multi_node_evaluator_returns_the_mean_over_ranks(comm):
    iterator = SerialIterator(_shard(comm.rank), 2, repeat=False, shuffle=False)
    evaluator = create_multi_node_evaluator(Evaluator(iterator, _Reporter()), comm)
    result = evaluator()
    again = evaluator()
    local_means = [numpy.mean(_batch_means(_shard(r), 2)) for r in range(comm.size)]
    local_squares = [numpy.mean(_batch_means(numpy.square(_shard(r)), 2))
                     for r in range(comm.size)]
    assert sorted(result) == ['main/square', 'main/value']
    numpy.testing.assert_allclose(result['main/value'], numpy.mean(local_means), rtol=1e-12)
    numpy.testing.assert_allclose(result['main/square'], numpy.mean(local_squares),
                                  rtol=1e-12)
    assert again == result


class _SumAndCount(GenericMultiNodeEvaluator):
    def calc_local(self, x):
        return float(x.sum()), len(x)

    def aggregate(self, results):
        return sum(s for s, _ in results) / sum(n for _, n in results), len(results)


def test_generic_evaluator_aggregates_every_result_on_the_root(comm):
    root = comm.size - 1
    progress = []
    iterator = SerialIterator(_shard(comm.rank), 3, repeat=False, shuffle=False)
    evaluator = _SumAndCount(comm, iterator, target=lambda x: None, root=root,
                             progress_hook=progress.append)
    result = evaluator()
    every = numpy.concatenate([_shard(r) for r in range(comm.size)])
    n_batches = sum(-(-(5 + r) // 3) for r in range(comm.size))
    if comm.rank == root:
        mean, count = result
        numpy.testing.assert_allclose(mean, every.mean(), rtol=1e-12)
        assert count == n_batches
        # As in ChainerMN: the hook gets each of the root's batches.
        assert progress == list(SerialIterator(_shard(root), 3, repeat=False, shuffle=False))
    else:
        assert result is None and progress == []


def test_generic_evaluator_interleaves_the_ranks_batches(comm):
    # Rank r has 1 + 2r batches of 2: round i holds batch i of each rank that has one.
    shard = [100 * comm.rank + i for i in range(2 + 4 * comm.rank)]
    iterator = SerialIterator(shard, 2, repeat=False, shuffle=False)
    evaluator = GenericMultiNodeEvaluator(comm, iterator, lambda x: int(x[0]))
    firsts = evaluator()
    expected = [100 * r + 2 * i for i in range(1 + 2 * (comm.size - 1))
                for r in range(comm.size) if i < 1 + 2 * r]
    assert firsts == (expected if comm.rank == 0 else None)


def test_generic_evaluator_defaults_and_failures(comm):
    iterator = SerialIterator(_shard(comm.rank), 4, repeat=False, shuffle=False)
    evaluator = GenericMultiNodeEvaluator(comm, iterator, lambda x: x.shape[0])
    sizes = evaluator()

    class Failing(GenericMultiNodeEvaluator):
        def calc_local(self, x):
            if comm.rank == 0:
                raise KeyError('broken on rank 0')
            return 1

    failing = Failing(comm, iterator, lambda x: None)
    expected_error = KeyError if comm.rank == 0 else RuntimeError
    with pytest.raises(expected_error, match='rank 0'):
        failing()
    if comm.rank == 0:  # shards of 5 + r: batches of 4, then 1 + r
        assert sizes == [4] * comm.size + [1 + r for r in range(comm.size)]
    else:
        assert sizes is None


def test_arguments_are_checked():
    comm = dist.create_communicator('dummy')
    iterator = SerialIterator([1.0], 1)
    with pytest.raises(ValueError, match='repeat'):
        GenericMultiNodeEvaluator(comm, iterator, lambda x: x)
    with pytest.raises(ValueError, match='root'):
        GenericMultiNodeEvaluator(comm, SerialIterator([1.0], 1, repeat=False), len, root=1)
    with pytest.raises(TypeError, match='evaluate'):
        create_multi_node_evaluator(object(), comm)
