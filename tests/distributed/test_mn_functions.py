"""The differentiable communication functions (catena.distributed.functions).

One-process tests run the dummy communicator through gradient_check. The MPI
tests give each rank known data (``data_of(rank, ...)``), so every rank can
compute the expected forward result and the gradients of the transposed
communication itself. All communication of a test runs before its asserts.
"""

import numpy
import pytest
from tests.distributed import _helpers
from tests.distributed._helpers import data_of

import catena
import catena.distributed as dist
import catena.functions as F
from catena import gradient_check
from catena.distributed import functions as DF


@pytest.fixture
def dummy():
    return dist.create_communicator('dummy')


@pytest.fixture(scope='module')
def comm(mpi_world):
    communicator = _helpers.make_communicator('naive', mpi_world)
    yield communicator
    communicator.finalize()


# ----------------------------------------------------------------- one process

@pytest.mark.parametrize('name', ['bcast', 'gather', 'allgather', 'scatter', 'alltoall'])
def test_collectives_of_one_rank_pass_gradient_check(dummy, name):
    call = {
        'bcast': lambda x: DF.bcast(dummy, x),
        'gather': lambda x: DF.gather(dummy, x),
        'allgather': lambda x: DF.allgather(dummy, x),
        'scatter': lambda x: DF.scatter(dummy, [x]),
        'alltoall': lambda x: DF.alltoall(dummy, [x]),
    }[name]
    x = data_of(0, (3, 4), salt=1)
    y = call(x)
    y = y[0] if isinstance(y, tuple) else y
    numpy.testing.assert_array_equal(y.array, x)
    assert not numpy.shares_memory(y.array, x)
    gradient_check.check_backward(call, x, data_of(0, (3, 4), salt=2), dtype=numpy.float64)


def test_pseudo_connect_passes_values_and_gradients():
    delegate = catena.Variable(numpy.zeros((), numpy.float32))
    a = catena.Variable(data_of(0, (2, 3), salt=3))
    b = catena.Variable(data_of(0, (4,), salt=4))
    ya, yb = DF.pseudo_connect(delegate, a, b)
    single, = DF.pseudo_connect(delegate, a)
    assert isinstance(DF.pseudo_connect(delegate, a), tuple)  # a 1-tuple, as in ChainerMN
    (F.sum(ya * 2.0) + F.sum(yb * 3.0)).backward()
    numpy.testing.assert_array_equal(ya.array, a.array)
    assert isinstance(single, catena.Variable)
    numpy.testing.assert_array_equal(a.grad, numpy.full((2, 3), 2.0))
    numpy.testing.assert_array_equal(b.grad, numpy.full((4,), 3.0))
    assert delegate.grad.shape == () and delegate.grad == 0
    gradient_check.check_backward(lambda x: DF.pseudo_connect(delegate, x * 2.0),
                                  a.array, data_of(0, (2, 3), salt=5), dtype=numpy.float64)


def test_pseudo_connect_without_a_delegate_or_with_an_array():
    # ChainerMN's pseudo_connect takes None (nothing to join: the last rank of
    # a pipeline) and arrays as the delegate.
    a = catena.Variable(data_of(0, (2, 3), salt=6))
    y, = DF.pseudo_connect(None, a)
    numpy.testing.assert_array_equal(y.array, a.array)
    F.sum(y * 2.0).backward()
    numpy.testing.assert_array_equal(a.grad, numpy.full((2, 3), 2.0))
    a.cleargrad()
    delegate = numpy.zeros((3,), numpy.float32)
    z, = DF.pseudo_connect(delegate, a)
    F.sum(z * 3.0).backward()
    numpy.testing.assert_array_equal(a.grad, numpy.full((2, 3), 3.0))


def test_bad_arguments_are_named(dummy):
    x = numpy.zeros(3)
    with pytest.raises(TypeError, match='communicator'):
        DF.bcast('not a communicator', x)
    with pytest.raises(ValueError, match='root'):
        DF.gather(dummy, x, root=1)
    with pytest.raises(TypeError, match='xs must be a tuple or list of 1'):
        DF.alltoall(dummy, [x, x])
    with pytest.raises(TypeError, match='x must be a Variable or an array'):
        DF.allgather(dummy, [1, 2])
    with pytest.raises(ValueError, match='this process itself'):
        DF.send(x, dummy, 0)
    with pytest.raises(ValueError, match='this process itself'):
        DF.recv(dummy, 0)
    with pytest.raises(ValueError, match='tag'):
        DF.recv(dummy, 0, tag=-1)
    with pytest.raises(TypeError, match='delegate_variable'):
        DF.pseudo_connect('not a delegate', x)
    with pytest.raises(ValueError, match='at least one'):
        DF.pseudo_connect(catena.Variable(x))


# ----------------------------------------------------------------- MPI: collectives

def test_bcast_forward_and_sum_of_gradients_on_root(comm):
    root = comm.size - 1
    x = catena.Variable(data_of(root, (2, 3), salt=10))
    y = DF.bcast(comm, x if comm.rank == root else None, root=root)
    y.grad = data_of(comm.rank, (2, 3), salt=11)
    y.backward()
    numpy.testing.assert_array_equal(y.array, data_of(root, (2, 3), salt=10))
    if comm.rank == root:
        expected = sum(data_of(r, (2, 3), salt=11) for r in range(comm.size))
        numpy.testing.assert_allclose(x.grad, expected, rtol=1e-14)
    else:
        assert x.grad is None


def test_gather_forward_and_scattered_gradients(comm):
    root = 0
    x = catena.Variable(data_of(comm.rank, (comm.rank + 1, 2), salt=20))
    ys = DF.gather(comm, x, root=root)
    if comm.rank == root:
        loss = sum(F.sum(y * data_of(r, (r + 1, 2), salt=21)) for r, y in enumerate(ys))
        loss.backward()
    else:
        ys.backward()
    numpy.testing.assert_array_equal(x.grad, data_of(comm.rank, (comm.rank + 1, 2), salt=21))
    if comm.rank == root:
        assert isinstance(ys, tuple) and len(ys) == comm.size
        for r, y in enumerate(ys):
            numpy.testing.assert_array_equal(y.array, data_of(r, (r + 1, 2), salt=20))
    else:
        assert isinstance(ys, catena.Variable) and ys.shape == ()


def test_scatter_forward_and_gathered_gradients(comm):
    root = comm.size - 1
    xs = [catena.Variable(data_of(r, (r + 2,), salt=30)) for r in range(comm.size)]
    y = DF.scatter(comm, xs if comm.rank == root else None, root=root)
    F.sum(y * data_of(comm.rank, (comm.rank + 2,), salt=31)).backward()
    numpy.testing.assert_array_equal(y.array, data_of(comm.rank, (comm.rank + 2,), salt=30))
    for r, x in enumerate(xs):
        if comm.rank == root:
            numpy.testing.assert_array_equal(x.grad, data_of(r, (r + 2,), salt=31))
        else:
            assert x.grad is None


def _weight(to_rank, of_rank, shape):
    return data_of(1000 + to_rank * 37 + of_rank, shape, salt=41)


def test_allgather_forward_and_reduced_gradients(comm):
    def shape(r):
        return (2, r + 1)

    x = catena.Variable(data_of(comm.rank, shape(comm.rank), salt=40))
    ys = DF.allgather(comm, x)
    # Output 0 gets no gradient: it takes part with zeros.
    loss = sum(F.sum(y * _weight(comm.rank, r, shape(r))) for r, y in enumerate(ys) if r)
    loss.backward()
    assert len(ys) == comm.size
    for r, y in enumerate(ys):
        numpy.testing.assert_array_equal(y.array, data_of(r, shape(r), salt=40))
    expected = numpy.zeros(shape(comm.rank)) if comm.rank == 0 else \
        sum(_weight(s, comm.rank, shape(comm.rank)) for s in range(comm.size))
    numpy.testing.assert_allclose(x.grad, expected, rtol=1e-14)


def test_alltoall_forward_and_returned_gradients(comm):
    n, rank = comm.size, comm.rank
    xs = [catena.Variable(data_of(rank * n + i, (i + 1,), salt=50)) for i in range(n)]
    ys = DF.alltoall(comm, xs)
    sum(F.sum(y * _weight(rank, r, (rank + 1,))) for r, y in enumerate(ys)).backward()
    for r, y in enumerate(ys):
        numpy.testing.assert_array_equal(y.array, data_of(r * n + rank, (rank + 1,), salt=50))
    for i, x in enumerate(xs):
        # xs[i] became rank i's output number `rank`, weighted there by _weight(i, rank).
        numpy.testing.assert_array_equal(x.grad, _weight(i, rank, (i + 1,)))
