"""AllreducePersistent, multi_node_snapshot, the checkpointer and local_rank_zero_first.

The file tests share a folder: rank 0 creates it and broadcasts its path.
``_barrier`` (an all-gather) orders the ranks' file operations.
"""

import os
import shutil
import tempfile
import types

import numpy
import pytest
from tests.distributed import _helpers
from tests.distributed._helpers import data_of

import catena
import catena.distributed as dist
import catena.links as L
from catena.distributed.extensions import (
    AllreducePersistent,
    create_multi_node_checkpointer,
    multi_node_snapshot,
)
from catena.distributed.extensions._multi_node_snapshot import _parse_replica_sets, replica_sets_of
from catena.distributed.utils import local_rank_zero_first
from catena.training.extensions import snapshot_object


@pytest.fixture(scope='module')
def comm(mpi_world):
    communicator = _helpers.make_communicator('naive', mpi_world)
    yield communicator
    communicator.finalize()


@pytest.fixture
def shared_dir(comm):
    path = comm.bcast_obj(tempfile.mkdtemp(prefix='catena-mn-') if comm.rank == 0 else None)
    yield path
    _barrier(comm)
    if comm.rank == 0:
        shutil.rmtree(path, ignore_errors=True)


def _barrier(comm):
    comm.allgather_obj(None)


class _Holder(catena.Link):
    def __init__(self, value):
        super().__init__()
        with self.init_scope():
            self.p = catena.Parameter(numpy.full((2,), float(value)))


# ----------------------------------------------------------------- one process

def test_replica_sets_are_expanded_as_documented():
    assert replica_sets_of([0], 4) == [[0], [1, 2, 3]]
    assert replica_sets_of([0, 1], 4) == [[0], [1], [2, 3]]
    assert replica_sets_of([[0, 1], [2, 3]], 4) == [[0, 1], [2, 3]]
    assert replica_sets_of([], 4) == [[0, 1, 2, 3]]
    assert replica_sets_of([range(0, 8, 2)], 8) == [[0, 2, 4, 6], [1, 3, 5, 7]]
    assert _parse_replica_sets([[2, 0]], 3) == [{0, 2}, {1}]
    with pytest.raises(ValueError, match='more than one'):
        replica_sets_of([0, [0, 1]], 4)
    with pytest.raises(ValueError, match='out of range'):
        replica_sets_of([4], 4)
    with pytest.raises(TypeError, match='replica_sets'):
        replica_sets_of(3, 4)


def test_checkpointer_arguments_are_checked():
    comm = dist.create_communicator('dummy')
    with pytest.raises(ValueError, match='cp_interval'):
        create_multi_node_checkpointer('run', comm, cp_interval=0)
    with pytest.raises(ValueError, match='name'):
        create_multi_node_checkpointer('', comm)
    with pytest.raises(TypeError, match='comm'):
        AllreducePersistent(L.Linear(2, 2), None)


# ----------------------------------------------------------------- MPI

def test_allreduce_persistent_averages_float_values_only(comm):
    n = comm.size
    model = catena.Sequential(L.BatchNormalization(3), L.BatchNormalization(2))
    model[0].avg_mean[:] = data_of(comm.rank, (3,), numpy.float32, salt=1)
    model[1].avg_var[:] = data_of(comm.rank, (2,), numpy.float32, salt=2)
    model[1].N = comm.rank
    model[1].add_persistent('scale', float(comm.rank))
    AllreducePersistent(model, comm)()
    expected_mean = numpy.mean([data_of(r, (3,), numpy.float32, salt=1) for r in range(n)],
                               axis=0)
    expected_var = numpy.mean([data_of(r, (2,), numpy.float32, salt=2) for r in range(n)],
                              axis=0)
    numpy.testing.assert_allclose(model[0].avg_mean, expected_mean, rtol=1e-6)
    numpy.testing.assert_allclose(model[1].avg_var, expected_var, rtol=1e-6)
    numpy.testing.assert_array_equal(model[0].avg_var, numpy.ones(3, numpy.float32))
    assert model[0].avg_mean.dtype == numpy.float32
    assert model[1].N == comm.rank
    assert model[1].scale == pytest.approx((n - 1) / 2)


def test_multi_node_snapshot_writes_once_per_replica_set_and_loads_on_all(comm,
                                                                          shared_dir):
    trainer = types.SimpleNamespace(out=shared_dir,
                                    updater=types.SimpleNamespace(iteration=7))
    target = _Holder(comm.rank)
    extension = multi_node_snapshot(
        comm, snapshot_object(target, 'snap_{.updater.iteration}'), [0])
    extension.initialize(trainer)
    extension(trainer)
    extension.finalize()
    _barrier(comm)
    written = sorted(os.listdir(shared_dir))

    target.p.array[:] = -1.0
    reloading = multi_node_snapshot(
        comm, snapshot_object(target, 'snap_{.updater.iteration}', autoload=True), [0])
    reloading.initialize(trainer)
    master = 0 if comm.rank == 0 else 1
    assert written == ['snap_7.0', 'snap_7.1']
    assert reloading.is_master == (comm.rank == master)
    numpy.testing.assert_array_equal(target.p.array, numpy.full((2,), float(master)))
    assert extension.trigger == (1, 'epoch') and extension.priority == -100


def _listing(folder, rank):
    return sorted(int(name.rsplit('.', 1)[1]) for name in os.listdir(folder)
                  if name.startswith(f'run.{rank}.'))


def test_checkpointer_collects_garbage_and_resumes_from_the_latest_common(comm, shared_dir):
    checkpointer = create_multi_node_checkpointer('run', comm, cp_interval=2, gc_interval=3,
                                                  path=shared_dir)
    target = _Holder(0)
    for iteration in range(1, 8):
        target.p.array[:] = iteration * 10 + comm.rank
        checkpointer.save(target, iteration)
    _barrier(comm)
    after_saves = _listing(shared_dir, comm.rank)
    if comm.rank == 0:  # rank 0 "crashed" before writing iteration 7
        os.remove(os.path.join(shared_dir, 'run.0.7'))
    _barrier(comm)

    resumed = _Holder(-1)
    restarted = create_multi_node_checkpointer('run', comm, cp_interval=2, gc_interval=3,
                                               path=shared_dir)
    restarted.maybe_load(resumed)
    after_load = _listing(shared_dir, comm.rank)
    restarted.finalize()
    _barrier(comm)
    # A new run without checkpoints loads nothing.
    untouched = _Holder(-5)
    create_multi_node_checkpointer('other', comm, path=shared_dir).maybe_load(untouched)
    # gc at the 3rd save kept {2, 3}; at the 6th kept {5, 6}; 7 came after.
    assert after_saves == [5, 6, 7]
    numpy.testing.assert_array_equal(resumed.p.array, numpy.full((2,), 60.0 + comm.rank))
    assert after_load == [5, 6]
    assert os.listdir(shared_dir) == []
    numpy.testing.assert_array_equal(untouched.p.array, numpy.full((2,), -5.0))


def test_checkpointer_keeps_files_after_an_error(comm, shared_dir):
    checkpointer = create_multi_node_checkpointer('run', comm, path=shared_dir)
    checkpointer.save(_Holder(1), 3)
    checkpointer.on_error(None, RuntimeError('boom'), None)
    checkpointer.finalize()
    _barrier(comm)
    assert _listing(shared_dir, comm.rank) == [3]


@pytest.mark.parametrize('grouping', [None, 'sim2'])
def test_local_rank_zero_first_runs_the_block_on_the_first_rank_first(mpi_world, shared_dir,
                                                                      grouping):
    extra = {} if grouping is None else {'node_name': _helpers.node_name(grouping,
                                                                          mpi_world.rank)}
    comm = dist.create_communicator('naive', mpi_comm=mpi_world, **extra)
    marker = os.path.join(shared_dir, f'cache-of-node-{comm.inter_rank}')
    with local_rank_zero_first(comm):
        found_before = os.path.exists(marker)
        if comm.intra_rank == 0:
            with open(marker, 'w') as file:
                file.write('filled')
    comm.finalize()
    # The first rank of a node found no cache; every other rank found it filled.
    assert found_before == (comm.intra_rank != 0)


def test_local_rank_zero_first_tells_everyone_of_a_failure(comm):
    expected = ValueError if comm.intra_rank == 0 else RuntimeError
    ran = []
    with pytest.raises(expected, match='no cache'):
        with local_rank_zero_first(comm):
            ran.append(comm.rank)
            raise ValueError('no cache')
    assert ran == ([comm.rank] if comm.intra_rank == 0 else [])
