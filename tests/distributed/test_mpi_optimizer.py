"""The multi-node optimizer equals single-process training on the whole batch."""

import numpy
import pytest
from tests.distributed import _helpers
from tests.distributed._helpers import data_of

import catena
import catena.distributed
import catena.functions as F
import catena.links as L
import catena.optimizers

GLOBAL_BATCH = 12
STEPS = 4


class MLP(catena.Chain):
    def __init__(self, seed):
        super().__init__()
        rng = numpy.random.default_rng(seed)
        with catena.using_config('dtype', numpy.float64), self.init_scope():
            self.l1 = L.Linear(3, 6, initialW=rng.standard_normal((6, 3)),
                               initial_bias=rng.standard_normal(6))
            self.l2 = L.Linear(6, 2, initialW=rng.standard_normal((2, 6)),
                               initial_bias=rng.standard_normal(2))

    def forward(self, x):
        return self.l2(F.tanh(self.l1(x)))


def loss_of(model):
    return lambda x, t: F.mean_squared_error(model(x), t)


def global_batch(step):
    return (data_of(1000 + step, (GLOBAL_BATCH, 3), salt=1),
            data_of(1000 + step, (GLOBAL_BATCH, 2), salt=2))


def single_process_params():
    model = MLP(seed=0)
    optimizer = catena.optimizers.MomentumSGD(lr=0.1, momentum=0.9)
    optimizer.setup(model)
    for step in range(STEPS):
        optimizer.update(loss_of(model), *global_batch(step))
    return {name: param.array.copy() for name, param in model.namedparams()}


@pytest.mark.parametrize('variant', ['naive', 'flat', 'flat-hierarchical'])
def test_same_parameters_as_single_process_training(mpi_world, variant):
    if GLOBAL_BATCH % mpi_world.size:
        pytest.skip(f'the batch of {GLOBAL_BATCH} does not split evenly over '
                    f'{mpi_world.size} ranks')
    comm = _helpers.make_communicator(variant, mpi_world)
    model = MLP(seed=comm.rank)  # rank 0's parameters reach the others
    optimizer = catena.distributed.create_multi_node_optimizer(
        catena.optimizers.MomentumSGD(lr=0.1, momentum=0.9), comm)
    optimizer.setup(model)
    shard = GLOBAL_BATCH // comm.size
    mine = slice(comm.rank * shard, (comm.rank + 1) * shard)

    x, t = global_batch(0)
    optimizer.update(loss_of(model), x[mine], t[mine])  # only broadcasts from rank 0
    after_first_call = {name: p.array.copy() for name, p in model.namedparams()}
    t_after_first_call = optimizer.t
    for step in range(STEPS):
        x, t = global_batch(step)
        optimizer.update(loss_of(model), x[mine], t[mine])
    everyone = comm.allgather_obj({name: p.array for name, p in model.namedparams()})
    comm.finalize()

    initial = {name: p.array for name, p in MLP(seed=0).namedparams()}
    for name in initial:
        numpy.testing.assert_array_equal(after_first_call[name], initial[name])
    assert t_after_first_call == 0 and optimizer.t == STEPS
    expected = single_process_params()
    for name, array in expected.items():
        numpy.testing.assert_allclose(everyone[comm.rank][name], array, rtol=1e-12,
                                      atol=1e-14)
        for other in everyone:
            numpy.testing.assert_array_equal(other[name], everyone[0][name])


def test_update_without_lossfun_uses_the_existing_gradients(mpi_world):
    comm = _helpers.make_communicator('flat', mpi_world)
    model = MLP(seed=comm.rank)
    optimizer = catena.distributed.create_multi_node_optimizer(
        catena.optimizers.SGD(lr=0.5), comm)
    optimizer.setup(model)
    optimizer.update()  # the first call broadcasts rank 0's parameters
    before = {name: p.array.copy() for name, p in model.namedparams()}
    for name, param in model.namedparams():
        param.grad = data_of(comm.rank, param.shape, salt=len(name))
    optimizer.update()
    comm.finalize()
    for name, param in model.namedparams():
        mean = numpy.mean([data_of(r, param.shape, salt=len(name)) for r in range(comm.size)],
                          axis=0)
        numpy.testing.assert_allclose(param.array, before[name] - 0.5 * mean, rtol=1e-12,
                                      atol=1e-14)


def test_attributes_go_to_the_actual_optimizer(mpi_world):
    comm = _helpers.make_communicator('naive', mpi_world)
    actual = catena.optimizers.MomentumSGD(lr=0.1)
    optimizer = catena.distributed.create_multi_node_optimizer(actual, comm)
    optimizer.lr = 0.05
    assert optimizer.setup(MLP(seed=0)) is optimizer
    comm.finalize()
    assert actual.lr == 0.05 and optimizer.lr == 0.05
    assert optimizer.target is actual.target is not None
    assert optimizer.actual_optimizer is actual and optimizer.communicator is comm


# ----------------------------------------------------------------- double buffering

def stale_single_process_params(steps):
    """Single-process training where each step uses the previous step's gradients."""
    model = MLP(seed=0)
    optimizer = catena.optimizers.MomentumSGD(lr=0.1, momentum=0.9)
    optimizer.setup(model)
    previous = None
    for step in range(steps):
        model.cleargrads()
        loss_of(model)(*global_batch(step)).backward()
        fresh = {name: param.grad.copy() for name, param in model.namedparams()}
        if previous is not None:
            for name, param in model.namedparams():
                param.grad = previous[name]
            optimizer.update()
        previous = fresh
    return {name: param.array.copy() for name, param in model.namedparams()}, optimizer.t


@pytest.mark.parametrize('variant', ['naive', 'flat', 'flat-hierarchical'])
def test_double_buffering_steps_with_the_previous_steps_mean(mpi_world, variant):
    if GLOBAL_BATCH % mpi_world.size:
        pytest.skip(f'the batch of {GLOBAL_BATCH} does not split evenly over '
                    f'{mpi_world.size} ranks')
    comm = _helpers.make_communicator(variant, mpi_world)
    model = MLP(seed=comm.rank)
    optimizer = catena.distributed.create_multi_node_optimizer(
        catena.optimizers.MomentumSGD(lr=0.1, momentum=0.9), comm, double_buffering=True)
    optimizer.setup(model)
    shard = GLOBAL_BATCH // comm.size
    mine = slice(comm.rank * shard, (comm.rank + 1) * shard)
    x, t = global_batch(0)
    optimizer.update(loss_of(model), x[mine], t[mine])  # only broadcasts from rank 0
    for step in range(STEPS):
        x, t = global_batch(step)
        optimizer.update(loss_of(model), x[mine], t[mine])
        if step == 0:
            assert optimizer.t == 0
            assert all(param.grad is None for param in model.params())
    threaded = optimizer._background._executor is not None
    everyone = comm.allgather_obj({name: p.array for name, p in model.namedparams()})
    comm.finalize()

    assert threaded  # the MPI wheel provides MPI.THREAD_MULTIPLE
    expected, expected_t = stale_single_process_params(STEPS)
    assert optimizer.t == expected_t == STEPS - 1
    for name, array in expected.items():
        numpy.testing.assert_allclose(everyone[comm.rank][name], array, rtol=1e-12,
                                      atol=1e-14)
        for other in everyone:
            numpy.testing.assert_array_equal(other[name], everyone[0][name])


def test_double_buffering_survives_a_changed_set_of_parameters(mpi_world):
    comm = _helpers.make_communicator('flat', mpi_world)
    model = MLP(seed=comm.rank)
    with catena.using_config('dtype', numpy.float64), model.init_scope():
        model.late = L.Linear(None, 2, initialW=catena.initializers.Normal(dtype=numpy.float64))
        # (W is initialized by the third update's forward)
    optimizer = catena.distributed.create_multi_node_optimizer(
        catena.optimizers.SGD(lr=0.1), comm, double_buffering=True)
    optimizer.setup(model)
    x = data_of(7, (4, 3))
    optimizer.update(lambda: F.sum(model(x)))  # broadcast
    optimizer.update(lambda: F.sum(model(x)))  # starts a mean
    optimizer.update(lambda: F.sum(model(x) + model.late(x)))  # a new parameter: broadcast
    assert optimizer.t == 0
    late = comm.allgather_obj(model.late.W.array)
    optimizer.update(lambda: F.sum(model(x) + model.late(x)))  # starts a mean
    optimizer.update(lambda: F.sum(model(x) + model.late(x)))  # steps with it
    comm.finalize()
    assert optimizer.t == 1
    for array in late:
        numpy.testing.assert_array_equal(array, late[0])
