"""Array and object collectives of the MPI communicators against NumPy references.

Every rank knows every rank's data (``data_of(rank, ...)``), so each test
computes the expected result itself. All collectives of a test run before
its assertions, so that a failing rank never leaves the others waiting.
"""

import pickle

import numpy
import pytest
from tests.distributed import _helpers
from tests.distributed._helpers import data_of


@pytest.fixture(params=list(_helpers.VARIANTS))
def comm(request, mpi_world):
    communicator = _helpers.make_communicator(request.param, mpi_world)
    communicator._variant = request.param
    yield communicator
    communicator.finalize()


def test_topology(comm, mpi_world):
    from mpi4py import MPI

    options = _helpers.VARIANTS[comm._variant][1]
    if 'node_name' in options:
        names = [_helpers.node_name(options['node_name'], r) for r in range(mpi_world.size)]
    else:
        names = mpi_world.allgather(MPI.Get_processor_name())
    assert (comm.rank, comm.size) == (mpi_world.rank, mpi_world.size)
    assert (comm.intra_rank, comm.intra_size, comm.inter_rank, comm.inter_size) == \
        _helpers.expected_topology(names, mpi_world.rank)


@pytest.mark.parametrize('dtype', [numpy.float64, numpy.float32, numpy.float16, numpy.int64])
def test_allreduce_sums(comm, dtype):
    results = [comm.allreduce(data_of(comm.rank, (3, 4), dtype, salt=1)),
               comm.allreduce(data_of(comm.rank, (), dtype, salt=2))]
    for result, shape, salt in zip(results, [(3, 4), ()], [1, 2]):
        parts = [data_of(r, shape, dtype, salt) for r in range(comm.size)]
        assert result.shape == shape and result.dtype == dtype
        if dtype == numpy.float16:
            # The order of the float16 additions is MPI's: compare loosely.
            expected = numpy.sum(numpy.stack(parts).astype(numpy.float64), axis=0)
            numpy.testing.assert_allclose(result.astype(numpy.float64), expected,
                                          rtol=1e-2, atol=1e-2)
        else:
            numpy.testing.assert_allclose(result, numpy.sum(numpy.stack(parts), axis=0),
                                          rtol=1e-6 if dtype == numpy.float32 else 1e-13)


@pytest.mark.parametrize('root_from_end', [False, True])
def test_bcast(comm, root_from_end):
    root = comm.size - 1 if root_from_end else 0
    sent = [data_of(root, (2, 5), numpy.float32, salt=3),
            data_of(root, (4, 3), numpy.int32, salt=4).T,  # not contiguous
            numpy.float16(1.5) * numpy.ones(())]
    got = [comm.bcast(x if comm.rank == root else None, root=root) for x in sent]
    for x, y in zip(sent, got):
        assert y.dtype == x.dtype and y.shape == x.shape
        numpy.testing.assert_array_equal(y, x)


def test_gather_with_shapes_that_differ(comm):
    root = comm.size - 1
    mine = data_of(comm.rank, (comm.rank + 1, 2), numpy.float32, salt=5)
    got = comm.gather(mine, root=root)
    got_at_zero = comm.gather(mine[:, 0], root=0)
    if comm.rank == root:
        assert isinstance(got, tuple) and len(got) == comm.size
        for r, array in enumerate(got):
            numpy.testing.assert_array_equal(array, data_of(r, (r + 1, 2), numpy.float32, 5))
    else:
        assert got is None
    if comm.rank == 0:
        for r, array in enumerate(got_at_zero):
            expected = data_of(r, (r + 1, 2), numpy.float32, 5)[:, 0]
            numpy.testing.assert_array_equal(array, expected)
    else:
        assert got_at_zero is None


def test_allgather(comm):
    got = comm.allgather(data_of(comm.rank, (2, comm.rank + 1), numpy.float64, salt=6))
    assert isinstance(got, tuple) and len(got) == comm.size
    for r, array in enumerate(got):
        numpy.testing.assert_array_equal(array, data_of(r, (2, r + 1), numpy.float64, 6))


def test_alltoall(comm):
    def piece(source, dest):
        return data_of(source * 100 + dest, (dest + 1, source + 2), numpy.float32, salt=7)

    got = comm.alltoall([piece(comm.rank, dest) for dest in range(comm.size)])
    assert isinstance(got, tuple) and len(got) == comm.size
    for source, array in enumerate(got):
        numpy.testing.assert_array_equal(array, piece(source, comm.rank))


@pytest.mark.parametrize('as_array', [False, True])
def test_scatter(comm, as_array):
    root = comm.size - 1
    rows = [data_of(r, (3,), numpy.float64, salt=8) for r in range(comm.size)]
    xs = (numpy.stack(rows) if as_array else rows) if comm.rank == root else None
    got = comm.scatter(xs, root=root)
    numpy.testing.assert_array_equal(got, rows[comm.rank])


def test_send_recv_around_a_ring(comm):
    dest, source = (comm.rank + 1) % comm.size, (comm.rank - 1) % comm.size
    comm.send(data_of(comm.rank, (2, 3), numpy.float32, salt=9), dest, tag=1)
    comm.send((data_of(comm.rank, (4,), numpy.int16, salt=10),
               data_of(comm.rank, (3, 2), numpy.float64, salt=11).T), dest, tag=2)
    single = comm.recv(source, tag=1)
    pair = comm.recv(source, tag=2)
    numpy.testing.assert_array_equal(single, data_of(source, (2, 3), numpy.float32, 9))
    assert isinstance(pair, tuple) and len(pair) == 2
    numpy.testing.assert_array_equal(pair[0], data_of(source, (4,), numpy.int16, 10))
    numpy.testing.assert_array_equal(pair[1], data_of(source, (3, 2), numpy.float64, 11).T)


def test_object_collectives(comm):
    root = comm.size - 1
    payload = {'rank': comm.rank, 'text': 'x' * 50, 'values': [comm.rank] * 3}
    dest, source = (comm.rank + 1) % comm.size, (comm.rank - 1) % comm.size
    comm.send_obj(payload, dest, tag=5)
    received = comm.recv_obj(source, tag=5)
    # A tiny max_buf_len makes bcast_obj send many pieces.
    broadcast = comm.bcast_obj(payload if comm.rank == root else None, max_buf_len=7,
                               root=root)
    gathered = comm.gather_obj(comm.rank * 10, root=root)
    everyone = comm.allgather_obj(('r', comm.rank))
    total = comm.allreduce_obj(comm.rank + 1)
    array_total = comm.allreduce_obj(numpy.full(2, comm.rank))
    scattered = comm.scatter_obj([f'for {r}' for r in range(comm.size)]
                                 if comm.rank == root else None, root=root)

    assert received == {'rank': source, 'text': 'x' * 50, 'values': [source] * 3}
    assert broadcast == {'rank': root, 'text': 'x' * 50, 'values': [root] * 3}
    assert gathered == ([r * 10 for r in range(comm.size)] if comm.rank == root else None)
    assert everyone == [('r', r) for r in range(comm.size)]
    assert total == comm.size * (comm.size + 1) // 2
    numpy.testing.assert_array_equal(array_total, numpy.full(2, sum(range(comm.size))))
    assert scattered == f'for {comm.rank}'


def test_split_gives_a_working_communicator_of_the_same_kind(comm):
    color = comm.rank % 2
    sub = comm.split(color, comm.rank)
    try:
        members = [r for r in range(comm.size) if r % 2 == color]
        total = sub.allreduce(numpy.array([comm.rank], dtype=numpy.int64))
        assert type(sub) is type(comm)
        assert (sub.size, sub.rank) == (len(members), members.index(comm.rank))
        assert total[0] == sum(members)
        assert sub.get_config() == comm.get_config()
    finally:
        sub.finalize()


# ---------------------------------------------------------------------------
# Bad input raises on every rank instead of leaving some waiting
# ---------------------------------------------------------------------------

def test_bad_root_raises_everywhere(comm):
    with pytest.raises(ValueError, match='root must be a rank'):
        comm.bcast(numpy.zeros(2), root=comm.size)


def test_root_passing_a_non_array_to_bcast_raises_everywhere(comm):
    with pytest.raises(ValueError, match='bcast failed: rank 0'):
        comm.bcast([1, 2] if comm.rank == 0 else None, root=0)
    # The communicator still works afterwards.
    assert comm.allreduce(numpy.ones(1))[0] == comm.size


def test_scatter_of_the_wrong_length_raises_everywhere(comm):
    xs = [numpy.zeros(1)] * (comm.size + 1) if comm.rank == 0 else None
    with pytest.raises(ValueError, match='scatter failed'):
        comm.scatter(xs, root=0)


def test_allreduce_of_shapes_that_differ_raises_everywhere(comm):
    if comm.size == 1:
        pytest.skip('needs two ranks whose shapes differ')
    with pytest.raises(ValueError, match='same shape and dtype'):
        comm.allreduce(numpy.zeros(comm.rank + 1))


def test_bcast_obj_of_an_unpicklable_object_raises_everywhere(comm):
    obj = (lambda: None) if comm.rank == 0 else None
    if comm.rank == 0:
        with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
            comm.bcast_obj(obj, root=0)
    else:
        with pytest.raises(ValueError, match='cannot pickle'):
            comm.bcast_obj(obj, root=0)
