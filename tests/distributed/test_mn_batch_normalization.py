"""MultiNodeBatchNormalization and create_mnbn_model.

Across ranks, the link must act like one BatchNormalization over the
concatenation of all ranks' batches (which differ in size here); every rank
computes that single-process reference from the known per-rank data.
"""

import numpy
import pytest
from tests.distributed import _helpers
from tests.distributed._helpers import data_of

import catena
import catena.distributed as dist
import catena.functions as F
import catena.links as L
from catena import gradient_check
from catena.distributed.functions.batch_normalization import multi_node_batch_normalization
from catena.distributed.links import MultiNodeBatchNormalization, create_mnbn_model

CHANNELS = 3


def _batch(rank, salt):
    # Batches of different sizes, with a large mean (cancellation would show).
    return data_of(rank, (3 + rank, CHANNELS, 2), salt=salt) * 2.0 + 50.0


def _parameters():
    return data_of(7, (CHANNELS,), salt=1) * 0.3 + 1.0, data_of(7, (CHANNELS,), salt=2)


def _links(comm):
    gamma, beta = _parameters()
    kwargs = {'dtype': numpy.float64, 'initial_gamma': gamma, 'initial_beta': beta}
    return (MultiNodeBatchNormalization(CHANNELS, comm, **kwargs),
            L.BatchNormalization(CHANNELS, **kwargs))


@pytest.fixture(scope='module', params=['naive', 'flat-hierarchical'])
def comm(request, mpi_world):
    communicator = _helpers.make_communicator(request.param, mpi_world)
    yield communicator
    communicator.finalize()


# ----------------------------------------------------------------- one process

def test_one_rank_equals_batch_normalization_and_passes_gradient_check():
    comm = dist.create_communicator('dummy')
    mnbn, bn = _links(comm)
    outputs = []
    for link in (mnbn, bn):
        link.cleargrads()
        x = catena.Variable(_batch(0, salt=3))
        y = link(x)
        F.sum(y * data_of(0, y.shape, salt=4)).backward()
        outputs.append((y.array, x.grad, link.gamma.grad, link.beta.grad, link.avg_mean,
                        link.avg_var))
    for got, expected in zip(*outputs):
        numpy.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    gamma, beta = _parameters()
    x = data_of(0, (4, CHANNELS, 2), salt=5)
    gradient_check.check_backward(
        lambda x, g, b: multi_node_batch_normalization(x, g, b, comm.allreduce, 1),
        (x, gamma, beta), data_of(0, x.shape, salt=6), dtype=numpy.float64)


def test_double_backprop_and_bad_backends_raise():
    comm = dist.create_communicator('dummy')
    mnbn, _ = _links(comm)
    x = catena.Variable(_batch(0, salt=3))
    y = mnbn(x)
    gx, = catena.grad([F.sum(y * y)], [x], enable_double_backprop=True)
    with pytest.raises(NotImplementedError, match='double backprop'):
        F.sum(gx * gx).backward()
    with pytest.raises(ValueError, match='nccl'):
        MultiNodeBatchNormalization(CHANNELS, comm, communication_backend='nccl')
    with pytest.raises(ValueError, match='communication_backend'):
        MultiNodeBatchNormalization(CHANNELS, comm, communication_backend='gloo')
    with pytest.raises(TypeError, match='comm'):
        MultiNodeBatchNormalization(CHANNELS, None)


class _Net(catena.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Linear(4, CHANNELS)
            self.bn = L.BatchNormalization(CHANNELS, decay=0.8, eps=1e-3)
            self.seq = catena.Sequential(L.BatchNormalization(CHANNELS), F.relu,
                                         L.BatchNormalization(CHANNELS, use_beta=False))
            self.renorm = L.BatchRenormalization(CHANNELS)


def test_create_mnbn_model_replaces_and_keeps_values():
    comm = dist.create_communicator('dummy')
    net = _Net()
    net.bn.avg_mean[:] = data_of(0, (CHANNELS,), salt=7)
    net.bn.gamma.array[:] = data_of(0, (CHANNELS,), salt=8)
    net.bn.N = 5
    net.seq[2].disable_update()
    converted = create_mnbn_model(net, comm)
    single = create_mnbn_model(L.BatchNormalization(CHANNELS), comm)
    assert type(net.bn) is L.BatchNormalization  # the original is unchanged
    assert isinstance(single, MultiNodeBatchNormalization)
    assert isinstance(converted.bn, MultiNodeBatchNormalization)
    assert isinstance(converted.seq[0], MultiNodeBatchNormalization)
    assert converted.seq[1] is F.relu
    assert isinstance(converted.seq[2], MultiNodeBatchNormalization)
    assert type(converted.renorm) is L.BatchRenormalization
    assert converted.bn.comm is comm and converted.bn.name == 'bn'
    assert (converted.bn.decay, converted.bn.eps, converted.bn.N) == (0.8, 1e-3, 5)
    assert converted.seq[2].beta is None and not converted.seq[2].update_enabled
    numpy.testing.assert_array_equal(converted.bn.avg_mean, net.bn.avg_mean)
    numpy.testing.assert_array_equal(converted.bn.gamma.array, net.bn.gamma.array)
    assert converted.bn.gamma.array is not net.bn.gamma.array
    numpy.testing.assert_array_equal(converted.conv.W.array, net.conv.W.array)
    assert sorted(name for name, _ in converted.namedparams()) == \
        sorted(name for name, _ in net.namedparams())
    copied = converted.copy('copy')
    assert copied.bn.comm is comm


# ----------------------------------------------------------------- MPI

def test_forward_backward_and_statistics_match_the_global_batch(comm):
    n, rank = comm.size, comm.rank
    mnbn, bn = _links(comm)
    x = catena.Variable(_batch(rank, salt=10))
    y = mnbn(x)
    F.sum(y * data_of(rank, y.shape, salt=11)).backward()
    with catena.using_config('train', False):
        y_test = mnbn(_batch(rank, salt=12)).array

    # One BatchNormalization over the concatenation of every rank's batch.
    sizes = [_batch(r, salt=10).shape[0] for r in range(n)]
    start = sum(sizes[:rank])
    x_all = catena.Variable(numpy.concatenate([_batch(r, salt=10) for r in range(n)]))
    y_all = bn(x_all)
    gy_all = numpy.concatenate([data_of(r, (sizes[r], CHANNELS, 2), salt=11)
                                for r in range(n)])
    F.sum(y_all * gy_all).backward()
    mine = slice(start, start + sizes[rank])
    numpy.testing.assert_allclose(y.array, y_all.array[mine], rtol=1e-10, atol=1e-10)
    numpy.testing.assert_allclose(x.grad, x_all.grad[mine], rtol=1e-9, atol=1e-12)
    # gamma and beta get the global gradient divided by the number of ranks.
    numpy.testing.assert_allclose(mnbn.gamma.grad * n, bn.gamma.grad, rtol=1e-10)
    numpy.testing.assert_allclose(mnbn.beta.grad * n, bn.beta.grad, rtol=1e-10)
    numpy.testing.assert_allclose(mnbn.avg_mean, bn.avg_mean, rtol=1e-12)
    numpy.testing.assert_allclose(mnbn.avg_var, bn.avg_var, rtol=1e-9)
    with catena.using_config('train', False):
        expected_test = bn(_batch(rank, salt=12)).array
    numpy.testing.assert_allclose(y_test, expected_test, rtol=1e-10, atol=1e-10)


def test_an_empty_local_batch_takes_part(comm):
    mnbn, bn = _links(comm)
    x = _batch(comm.rank, salt=20)[:0] if comm.rank == 0 else _batch(comm.rank, salt=20)
    y = mnbn(x)
    bn(numpy.concatenate([_batch(r, salt=20) for r in range(1, comm.size)]))
    assert y.shape == x.shape
    numpy.testing.assert_allclose(mnbn.avg_mean, bn.avg_mean, rtol=1e-12)
    numpy.testing.assert_allclose(mnbn.avg_var, bn.avg_var, rtol=1e-9)
