"""send / recv / pseudo_connect across ranks, and MultiNodeChainList.

Every rank builds the same reference values (``data_of``) and the same
single-process model, so each can check its own part of the distributed run.
The messages of these tests are small: MPI delivers them eagerly, so the
rings below (every rank sends first, then receives) cannot block.
"""

import numpy
import pytest
from tests.distributed import _helpers
from tests.distributed._helpers import data_of

import catena
import catena.distributed as dist
import catena.functions as F
import catena.links as L
import catena.optimizers
from catena.distributed import functions as DF
from catena.distributed.links import MultiNodeChainList


@pytest.fixture(scope='module')
def comm(mpi_world):
    communicator = _helpers.make_communicator('naive', mpi_world)
    yield communicator
    communicator.finalize()


def test_ring_of_send_and_recv_gives_the_gradients_of_one_process(comm):
    n, rank = comm.size, comm.rank
    scales = [1.0 + 0.25 * r for r in range(n)]
    x0 = data_of(0, (3, 2), salt=1)
    scale = catena.Variable(numpy.array(scales[rank]))
    if rank == 0:
        x = catena.Variable(x0)
        phi = DF.send(F.tanh(x * F.broadcast_to(scale, x.shape)), comm, 1)
        y = DF.recv(comm, n - 1, delegate_variable=phi)
        loss = F.sum(y * y)
        loss.backward()
    else:
        z = DF.recv(comm, rank - 1)
        phi = DF.send(F.tanh(z * F.broadcast_to(scale, z.shape)), comm, (rank + 1) % n)
        phi.backward()

    # The same chain in one process.
    ref_x = catena.Variable(x0)
    ref_scales = [catena.Variable(numpy.array(s)) for s in scales]
    h = ref_x
    for s in ref_scales:
        h = F.tanh(h * F.broadcast_to(s, h.shape))
    ref_loss = F.sum(h * h)
    ref_loss.backward()
    assert phi.shape == () and phi.name == 'delegate_variable'
    numpy.testing.assert_allclose(scale.grad, ref_scales[rank].grad, rtol=1e-12)
    if rank == 0:
        numpy.testing.assert_allclose(loss.array, ref_loss.array, rtol=1e-12)
        numpy.testing.assert_allclose(x.grad, ref_x.grad, rtol=1e-12)


def test_tuples_force_tuple_and_pseudo_connect_with_tags(comm):
    n, rank = comm.size, comm.rank
    following, preceding = (rank + 1) % n, (rank - 1) % n
    x = catena.Variable(data_of(rank, (4,), salt=2))
    # Two sends joined by pseudo_connect, then two receives on other tags.
    phi1 = DF.send(x * 2.0, comm, following, tag=1)
    phi2 = DF.send((x * 3.0, x * 5.0), comm, following, tag=2)
    psi, = DF.pseudo_connect(phi1, phi2)
    u = DF.recv(comm, preceding, delegate_variable=psi, tag=1, force_tuple=True)
    v, w = DF.recv(comm, preceding, delegate_variable=u[0], tag=2)
    F.sum(u[0] * v + w).backward()
    mine = data_of(preceding, (4,), salt=2)
    assert isinstance(u, tuple) and len(u) == 1
    numpy.testing.assert_allclose(u[0].array, 2 * mine)
    numpy.testing.assert_allclose(w.array, 5 * mine)
    # The next rank's loss is sum(2x * 3x + 5x): its gradient comes back here.
    numpy.testing.assert_allclose(x.grad, 12 * x.array + 5, rtol=1e-13)


class _Stage(catena.Chain):
    def __init__(self, index, width):
        super().__init__()
        with self.init_scope():
            self.linear = L.Linear(width, width, initialW=data_of(index, (width, width), salt=3),
                                   initial_bias=data_of(index, (width,), salt=4))

    def forward(self, x):
        return F.tanh(self.linear(x))


def _stages(n, width):
    with catena.using_config('dtype', numpy.float64):
        head = L.Linear(width, 1, initialW=data_of(99, (1, width), salt=3), initial_bias=0.0)
        return [_Stage(r, width) for r in range(n)], head


def _reference_loss(stages, head, x, t):
    h = x
    for stage in stages:
        h = stage(h)
    return F.mean_squared_error(head(h), t)


def test_multi_node_chain_list_trains_like_one_process(comm):
    n, rank, width = comm.size, comm.rank, 3
    x, t = data_of(0, (5, width), salt=5), data_of(0, (5, 1), salt=6)
    stages, head = _stages(n, width)
    model = MultiNodeChainList(comm)
    if rank == 0:
        model.add_link(stages[0], rank_in=None, rank_out=1)
        model.add_link(head, rank_in=n - 1, rank_out=None)
    else:
        model.add_link(stages[rank], rank_in=rank - 1, rank_out=(rank + 1) % n)
    optimizer = catena.optimizers.SGD(lr=0.5).setup(model)
    losses, grads = [], None
    for step in range(2):
        model.cleargrads()
        out = model(x) if rank == 0 else model()
        loss = F.mean_squared_error(out, t) if rank == 0 else out
        loss.backward()
        losses.append(float(loss.array))
        if step == 0:
            grads = {name: param.grad.copy() for name, param in model.namedparams()}
        optimizer.update()

    ref_stages, ref_head = _stages(n, width)
    ref_model = catena.ChainList(*ref_stages, ref_head)
    ref_optimizer = catena.optimizers.SGD(lr=0.5).setup(ref_model)
    ref_losses = []
    for step in range(2):
        ref_model.cleargrads()
        ref_loss = _reference_loss(ref_stages, ref_head, x, t)
        ref_loss.backward()
        ref_losses.append(float(ref_loss.array))
        if step == 0:
            ref_grads = {'/0/linear/W': ref_stages[rank].linear.W.grad.copy()}
            if rank == 0:
                ref_grads['/1/W'] = ref_head.W.grad.copy()
        ref_optimizer.update()
    if rank == 0:
        numpy.testing.assert_allclose(losses, ref_losses, rtol=1e-12)
    else:
        assert losses == [0.0, 0.0]  # the delegate variable
    for name, expected in ref_grads.items():
        numpy.testing.assert_allclose(grads[name], expected, rtol=1e-12, atol=1e-15)


def test_parts_on_one_rank_hand_their_values_over_locally():
    comm = dist.create_communicator('dummy')
    stages, head = _stages(2, 3)
    model = MultiNodeChainList(comm)
    model.add_link(stages[0], rank_in=None, rank_out=0)
    model.add_link(stages[1], rank_in=[0], rank_out=[0])
    model.add_link(head, rank_in=0, rank_out=None)
    x, t = data_of(0, (4, 3), salt=7), data_of(0, (4, 1), salt=8)
    loss = F.mean_squared_error(model(x), t)
    model.cleargrads()
    loss.backward()
    ref_stages, ref_head = _stages(2, 3)
    ref_loss = _reference_loss(ref_stages, ref_head, x, t)
    ref_stages[1].cleargrads()
    ref_loss.backward()
    numpy.testing.assert_allclose(loss.array, ref_loss.array, rtol=1e-12)
    numpy.testing.assert_allclose(model[1].linear.W.grad, ref_stages[1].linear.W.grad,
                                  rtol=1e-12)
    with pytest.raises(ValueError, match='only one part'):
        model.add_link(L.Linear(3, 3), rank_in=0, rank_out=None)
    with pytest.raises(ValueError, match='rank_out'):
        model.add_link(L.Linear(3, 3), rank_out=1)
    assert len(model) == 3
