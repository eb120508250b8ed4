"""The dummy communicator (one process, no MPI) and argument checks that need no MPI job."""

import numpy
import pytest

import catena
import catena.distributed as dist
import catena.functions as F
import catena.links as L
import catena.optimizers


@pytest.fixture
def comm():
    return dist.create_communicator('dummy')


def test_topology(comm):
    assert (comm.rank, comm.size, comm.intra_rank, comm.intra_size, comm.inter_rank,
            comm.inter_size) == (0, 1, 0, 1, 0, 1)
    assert comm.mpi_comm is None
    assert isinstance(comm.split(0, 0), dist.DummyCommunicator)


def test_array_collectives_are_those_of_one_rank(comm):
    x = numpy.arange(6.0).reshape(2, 3)
    gathered = comm.gather(x)
    allgathered = comm.allgather(x)
    summed = comm.allreduce(x)
    assert comm.bcast(x) is x
    assert isinstance(gathered, tuple) and len(gathered) == 1
    numpy.testing.assert_array_equal(gathered[0], x)
    numpy.testing.assert_array_equal(allgathered[0], x)
    numpy.testing.assert_array_equal(summed, x)
    assert summed is not x
    numpy.testing.assert_array_equal(comm.alltoall([x])[0], x)
    numpy.testing.assert_array_equal(comm.scatter([x]), x)


def test_send_and_recv_to_itself(comm):
    comm.send(numpy.ones(3), dest=0, tag=4)
    comm.send((numpy.zeros(2), numpy.ones(1)), dest=0, tag=5)
    pair = comm.recv(0, tag=5)
    numpy.testing.assert_array_equal(comm.recv(0, tag=4), numpy.ones(3))
    assert len(pair) == 2
    with pytest.raises(RuntimeError, match='nothing was sent'):
        comm.recv(0, tag=4)
    with pytest.raises(ValueError, match='dest must be 0'):
        comm.send(numpy.ones(1), dest=1)


def test_object_collectives(comm):
    comm.send_obj({'a': 1}, dest=0)
    assert comm.recv_obj(0) == {'a': 1}
    assert comm.bcast_obj([1, 2]) == [1, 2]
    assert comm.gather_obj(3) == [3]
    assert comm.allgather_obj(3) == [3]
    assert comm.allreduce_obj(3) == 3
    assert comm.scatter_obj(['only']) == 'only'


def test_mean_grad_casts_through_allreduce_grad_dtype():
    comm = dist.create_communicator('dummy', allreduce_grad_dtype='float16')
    link = L.Linear(3, 2)
    link.W.grad = numpy.full((2, 3), 0.1, dtype=numpy.float32)
    link.b.grad = None
    comm.multi_node_mean_grad(link, zero_fill=True)
    assert link.W.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(link.W.grad,
                                     numpy.float32(numpy.float16(0.1)) * numpy.ones((2, 3)))
    numpy.testing.assert_array_equal(link.b.grad, numpy.zeros(2, dtype=numpy.float32))


def test_multi_node_optimizer_with_one_rank_equals_the_optimizer():
    def model_and_data():
        rng = numpy.random.default_rng(0)
        with catena.using_config('dtype', numpy.float64):
            model = L.Linear(4, 2, initialW=rng.standard_normal((2, 4)))
        return model, rng.standard_normal((5, 4)), rng.standard_normal((5, 2))

    plain_model, x, t = model_and_data()
    plain = catena.optimizers.Adam()
    plain.setup(plain_model)
    wrapped_model, _, _ = model_and_data()
    wrapped = dist.create_multi_node_optimizer(catena.optimizers.Adam(),
                                               dist.create_communicator('dummy'))
    wrapped.setup(wrapped_model)
    wrapped.update(lambda: F.mean_squared_error(wrapped_model(x), t))  # only synchronizes
    for _ in range(3):
        plain.update(lambda: F.mean_squared_error(plain_model(x), t))
        wrapped.update(lambda: F.mean_squared_error(wrapped_model(x), t))
    numpy.testing.assert_allclose(wrapped_model.W.array, plain_model.W.array, rtol=1e-14)
    assert wrapped.t == plain.t == 3


def test_scatter_dataset_with_one_rank_keeps_everything(comm):
    part = dist.scatter_dataset(list(range(7)), comm, shuffle=True, seed=1)
    assert sorted(part) == list(range(7))
    assert list(part) == list(numpy.random.RandomState(1).permutation(7))
    assert dist.scatter_index(7, comm) == (0, 7)


# ---------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------

def test_unknown_communicator_names_the_available_ones():
    with pytest.raises(ValueError, match="unknown communicator 'nope'.*'dummy'"):
        dist.create_communicator('nope')
    if 'pure_nccl' not in dist.communicator_names():  # catena-cuda may provide it
        with pytest.raises(ValueError, match='catena-cuda'):
            dist.create_communicator('pure_nccl')
    with pytest.raises(ValueError, match='hierarchical=True'):
        dist.create_communicator('hierarchical')
    with pytest.raises(TypeError, match='communicator_name must be a str'):
        dist.create_communicator(3)


def test_builtin_names():
    assert {'naive', 'flat', 'dummy'} <= set(dist.communicator_names())


def test_bad_allreduce_grad_dtype():
    with pytest.raises(ValueError, match='allreduce_grad_dtype must be a floating dtype'):
        dist.create_communicator('dummy', allreduce_grad_dtype=numpy.int32)
    with pytest.raises(TypeError, match='allreduce_grad_dtype'):
        dist.create_communicator('dummy', allreduce_grad_dtype='not a dtype')


def test_dummy_refuses_an_mpi_comm():
    with pytest.raises(ValueError, match='mpi_comm must be None'):
        dist.create_communicator('dummy', mpi_comm=object())


def test_multi_node_optimizer_arguments(comm):
    with pytest.raises(TypeError, match='actual_optimizer'):
        dist.create_multi_node_optimizer(object(), comm)
    with pytest.raises(TypeError, match='communicator'):
        dist.create_multi_node_optimizer(catena.optimizers.SGD(), object())
    for double_buffering in (False, True):
        optimizer = dist.create_multi_node_optimizer(catena.optimizers.SGD(), comm,
                                                     double_buffering=double_buffering)
        with pytest.raises(RuntimeError, match='setup'):
            optimizer.update()


def test_double_buffering_in_one_process_steps_with_the_previous_gradients(comm):
    model = catena.links.Linear(3, 2, initialW=numpy.eye(2, 3), initial_bias=numpy.zeros(2))
    optimizer = dist.create_multi_node_optimizer(catena.optimizers.SGD(lr=1.0), comm,
                                                 double_buffering=True)
    optimizer.setup(model)
    batches = [numpy.full((1, 3), float(step + 1), numpy.float32) for step in range(4)]
    for x in batches:
        optimizer.update(lambda x=x: catena.functions.sum(model(x)))
    assert optimizer._background._executor is None  # no MPI: averaged inline
    # Update 1 broadcasts, update 2 starts the mean of batch 2's gradients, updates 3
    # and 4 step with those of batches 2 and 3. d sum(W x + b) / dW = x for each row.
    expected_w = numpy.eye(2, 3) - (2.0 + 3.0)
    numpy.testing.assert_allclose(model.W.array, expected_w, rtol=1e-6)
    numpy.testing.assert_allclose(model.b.array, [-2.0, -2.0], rtol=1e-6)
    assert optimizer.t == 2


def test_a_communicator_without_array_means_refuses_double_buffering():
    class Minimal(dist.DummyCommunicator):
        _mean_grad_arrays = dist.CommunicatorBase._mean_grad_arrays

    with pytest.raises(NotImplementedError, match='Minimal cannot average a list'):
        Minimal()._mean_grad_arrays([numpy.zeros(2)])


def test_model_must_be_a_link(comm):
    with pytest.raises(TypeError, match='model must be a catena.Link'):
        comm.multi_node_mean_grad([numpy.zeros(2)])


def test_scatter_dataset_needs_a_communicator():
    with pytest.raises(TypeError, match='comm must be'):
        dist.scatter_dataset([1, 2], comm=None)
