"""DataParallel: the unsplit loss, outputs and gradients; training with its hooks."""

from __future__ import annotations

import numpy
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena import backend, optimizers
from catena.links.model.data_parallel import (
    DataParallelAccumulateGrads,
    DataParallelBroadcastParams,
)
from catena.testing._fake_device import FakeArray

_TOL = {'rtol': 1e-12, 'atol': 1e-13}
_DEVICE_PAIRS = [('@fake', '@fake'), ('@numpy', '@fake')]


def _rng(seed=0):
    return numpy.random.default_rng(seed)


class _NestedModel(catena.Chain):
    """Takes ``(({'x': Variable, 'z': array}, [Variable]), scale, mode=...)``; returns a mean loss.

    Each call records the batch size it saw, so tests can check how the batch was cut.
    """

    def __init__(self, seed=0):
        super().__init__()
        rng = _rng(seed)
        with self.init_scope():
            self.W = catena.Parameter(rng.standard_normal((2, 3)))
            self.V = catena.Parameter(rng.standard_normal((2, 3)))
            self.b = catena.Parameter(rng.standard_normal(2))
        self.seen = []

    def forward(self, inputs, scale, mode='square'):
        (named, listed) = inputs
        self.seen.append(named['x'].shape[0])
        h = F.linear(named['x'], self.W, self.b) + F.linear(listed[0] * named['z'], self.V)
        h = h * scale
        assert mode == 'square'
        return F.mean(h * h)


def _numpy_loss(W, V, b, x, z, u, scale):
    h = (x @ W.T + b + (u * z) @ V.T) * scale
    return float(numpy.mean(h * h))


def _nested_batch(n, seed=1):
    rng = _rng(seed)
    return rng.standard_normal((n, 3)), rng.standard_normal((n, 3)), rng.standard_normal((n, 3))


def _run(model, x, z, u, scale):
    """Calls ``model`` on fresh input Variables; returns the loss and the input Variables."""
    xv, uv = catena.Variable(x.copy()), catena.Variable(u.copy())
    loss = model((({'x': xv, 'z': z.copy()}, [uv])), scale, mode='square')
    return loss, xv, uv


def _assert_same_as_unsplit(devices, n, weights=None):
    reference = _NestedModel()
    dp = L.DataParallel(_NestedModel(), devices, weights=weights)
    x, z, u = _nested_batch(n)
    expected_loss, ref_x, ref_u = _run(reference, x, z, u, 0.5)
    reference.cleargrads()
    expected_loss.backward()

    loss, xv, uv = _run(dp, x, z, u, 0.5)
    dp.cleargrads()
    loss.backward()
    dp.accumulate_grads()

    assert loss.device == backend.get_device(devices[0])
    assert float(loss.array) == pytest.approx(
        _numpy_loss(reference.W.array, reference.V.array, reference.b.array, x, z, u, 0.5),
        rel=1e-12)
    numpy.testing.assert_allclose(float(loss.array), float(expected_loss.array), **_TOL)
    for name in ('W', 'V', 'b'):
        got = backend.get_device_from_array(getattr(dp.module, name).grad).to_numpy(
            getattr(dp.module, name).grad)
        numpy.testing.assert_allclose(got, getattr(reference, name).grad, **_TOL)
    numpy.testing.assert_allclose(xv.grad, ref_x.grad, **_TOL)
    numpy.testing.assert_allclose(uv.grad, ref_u.grad, **_TOL)
    for replica in dp.replicas[1:]:
        assert all(param.grad is None for param in replica.params())
    return dp


@pytest.mark.parametrize('devices', _DEVICE_PAIRS)
def test_nested_inputs_give_the_unsplit_loss_and_gradients(devices):
    dp = _assert_same_as_unsplit(devices, 7)
    assert [replica.seen for replica in dp.replicas] == [[4], [3]]
    assert dp.replicas[1].W.device == backend.get_device(devices[1])


@pytest.mark.parametrize('devices', _DEVICE_PAIRS)
def test_batch_smaller_than_the_device_count_skips_the_idle_replica(devices):
    dp = _assert_same_as_unsplit(devices, 1)
    assert [replica.seen for replica in dp.replicas] == [[1], []]


@pytest.mark.parametrize('devices', _DEVICE_PAIRS)
def test_weighted_split_gives_the_unsplit_loss_and_gradients(devices):
    dp = _assert_same_as_unsplit(devices, 8, weights=[3, 1])
    assert [replica.seen for replica in dp.replicas] == [[6], [2]]
    dp = _assert_same_as_unsplit(devices, 5, weights=[0, 2])
    assert [replica.seen for replica in dp.replicas] == [[], [5]]


def test_three_devices_each_get_their_own_contiguous_chunk():
    # The seed's chunk end ``i + 1 * per_device`` gave the middle device one example only.
    received = []

    class _Recorder(catena.Link):
        def forward(self, x):
            received.append(backend.get_device_from_array(x).to_numpy(x).copy())
            return x * 2.0

    dp = L.DataParallel(_Recorder(), ['@numpy', '@fake', '@fake'])
    x = numpy.arange(18.0).reshape(9, 2)
    y = dp(x)
    assert [r[:, 0].tolist() for r in received] == [[0, 2, 4], [6, 8, 10], [12, 14, 16]]
    numpy.testing.assert_array_equal(y, 2 * x)


def test_output_device_and_batch_dim():
    class _Double(catena.Link):
        def forward(self, x):
            return {'y': x * 2.0, 'mean': F.mean(x)}

    x = catena.Variable(_rng().standard_normal((2, 5, 3)))
    dp = L.DataParallel(_Double(), ['@fake', '@fake'], output_device='@numpy', batch_dim=1,
                        weights=[1, 4])
    out = dp(x)
    assert type(out['y'].array) is numpy.ndarray
    numpy.testing.assert_allclose(out['y'].array, 2 * x.array, **_TOL)
    numpy.testing.assert_allclose(float(out['mean'].array), x.array.mean(), **_TOL)
    out['mean'].backward()
    numpy.testing.assert_allclose(x.grad, numpy.full(x.shape, 1 / x.size), **_TOL)


def test_nested_outputs_are_gathered_like_the_unsplit_module():
    class _Many(catena.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.W = catena.Parameter(_rng(3).standard_normal((4, 3)))

        def forward(self, x, t):
            y = F.linear(x, self.W)
            loss = F.mean_squared_error(y, t)
            return {'y': y, 'extra': (y.array * 2, [loss, 'note']), 'nothing': None}

    rng = _rng(4)
    x, t = rng.standard_normal((6, 3)), rng.standard_normal((6, 4))
    reference = _Many()
    expected = reference(x, t)
    dp = L.DataParallel(_Many(), ['@numpy', '@fake'], weights=[1, 2])
    got = dp(x, t)
    assert set(got) == {'y', 'extra', 'nothing'} and got['nothing'] is None
    numpy.testing.assert_allclose(got['y'].array, x @ reference.W.array.T, **_TOL)
    numpy.testing.assert_allclose(got['extra'][0], expected['extra'][0], **_TOL)
    assert isinstance(got['extra'], tuple) and isinstance(got['extra'][1], list)
    numpy.testing.assert_allclose(float(got['extra'][1][0].array),
                                  float(expected['extra'][1][0].array), **_TOL)
    assert got['extra'][1][1] == 'note'


def test_summed_scalars_with_scalar_reduce_sum():
    class _SumLoss(catena.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.W = catena.Parameter(_rng(5).standard_normal((2, 3)))

        def forward(self, x):
            return F.sum(F.linear(x, self.W) ** 2)

    x = _rng(6).standard_normal((5, 3))
    reference = _SumLoss()
    dp = L.DataParallel(_SumLoss(), ['@numpy', '@fake'], scalar_reduce='sum')
    numpy.testing.assert_allclose(float(dp(x).array), float(reference(x).array), **_TOL)


def _train(target, optimizer, batches, loss_of):
    for x, t in batches:
        optimizer.update(lambda x, t: loss_of(target, x, t), x, t)


@pytest.mark.parametrize('devices', _DEVICE_PAIRS)
def test_training_loop_reaches_the_unsplit_parameters(devices):
    def make():
        with catena.using_config('dtype', numpy.float64):
            return L.Linear(3, 2, initialW=_rng(7).standard_normal((2, 3)))

    def loss_of(link, x, t):
        return F.mean_squared_error(link(x), t)

    rng = _rng(8)
    batches = [(rng.standard_normal((5, 3)), rng.standard_normal((5, 2))) for _ in range(4)]
    reference = make()
    ref_opt = optimizers.MomentumSGD(lr=0.1).setup(reference)
    _train(reference, ref_opt, batches, loss_of)

    dp = L.DataParallel(make(), devices, output_device='@numpy', weights=[2, 3])
    optimizer = optimizers.MomentumSGD(lr=0.1).setup(dp)
    dp.add_optimizer_hooks(optimizer)
    _train(dp, optimizer, batches, loss_of)

    for name in ('W', 'b'):
        numpy.testing.assert_allclose(getattr(dp.module, name).array,
                                      getattr(reference, name).array, **_TOL)
        replica_param = getattr(dp.replicas[1], name)
        assert replica_param.device == backend.get_device(devices[1])
        numpy.testing.assert_array_equal(replica_param.device.to_numpy(replica_param.array),
                                         getattr(dp.module, name).array)
    assert [name for name, _ in dp.namedparams()] == ['/module/W', '/module/b']


def test_hooks_find_data_parallel_inside_a_classifier():
    def make():
        with catena.using_config('dtype', numpy.float64):
            return L.Linear(4, 3, initialW=_rng(9).standard_normal((3, 4)))

    rng = _rng(10)
    x, t = rng.standard_normal((6, 4)), rng.integers(0, 3, 6).astype(numpy.int32)
    reference = L.Classifier(make())
    ref_opt = optimizers.SGD(lr=0.5).setup(reference)
    model = L.Classifier(L.DataParallel(make(), ['@numpy', '@fake']))
    optimizer = optimizers.SGD(lr=0.5).setup(model)
    optimizer.add_hook(DataParallelAccumulateGrads())
    optimizer.add_hook(DataParallelBroadcastParams())
    for _ in range(3):
        ref_opt.update(reference, x, t)
        optimizer.update(model, x, t)
        numpy.testing.assert_allclose(float(model.loss.array), float(reference.loss.array),
                                      **_TOL)
    dp = model.predictor
    numpy.testing.assert_allclose(dp.module.W.array, reference.predictor.W.array, **_TOL)
    numpy.testing.assert_array_equal(numpy.asarray(dp.replicas[1].W.array), dp.module.W.array)


def test_accumulate_hook_catches_a_replica_overflow_under_dynamic_loss_scaling():
    dp = L.DataParallel(_NestedModel(), ['@numpy', '@fake'])
    optimizer = optimizers.SGD(lr=0.1).setup(dp)
    dp.add_optimizer_hooks(optimizer)
    optimizer.loss_scaling()
    before = dp.module.W.array.copy()
    x, z, u = _nested_batch(4)
    loss, _, _ = _run(dp, x, z, u, 1.0)
    dp.cleargrads()
    loss.backward()
    dp.replicas[1].W.grad[0, 0] = numpy.inf
    with pytest.warns(RuntimeWarning, match='non-finite'):
        optimizer.update()
    numpy.testing.assert_array_equal(dp.module.W.array, before)


def test_lazily_initialized_parameters_reach_the_replicas():
    dp = L.DataParallel(L.Linear(None, 2), ['@numpy', '@fake'])
    x = _rng(11).standard_normal((4, 3)).astype(numpy.float32)
    y = dp(x)
    W, b = dp.module.W.array, dp.module.b.array
    numpy.testing.assert_array_equal(numpy.asarray(dp.replicas[1].W.array), W)
    numpy.testing.assert_allclose(y.array, x @ W.T + b, rtol=1e-6, atol=1e-6)
    lazy = L.DataParallel(L.Linear(None, 2), ['@numpy', '@fake'], weights=[0, 1])
    with pytest.raises(RuntimeError, match='uninitialized'):
        lazy(x)


def test_loading_a_snapshot_updates_the_replicas(tmp_path):
    source = _NestedModel(seed=12)
    catena.serializers.save_npz(str(tmp_path / 'm.npz'), L.DataParallel(source, ['@numpy']))
    dp = L.DataParallel(_NestedModel(seed=13), ['@numpy', '@fake'])
    catena.serializers.load_npz(str(tmp_path / 'm.npz'), dp)
    numpy.testing.assert_array_equal(dp.module.W.array, source.W.array)
    assert isinstance(dp.replicas[1].W.array, FakeArray)
    numpy.testing.assert_array_equal(numpy.asarray(dp.replicas[1].W.array), source.W.array)


def test_cleargrads_clears_every_replica():
    dp = L.DataParallel(_NestedModel(), ['@numpy', '@fake'])
    x, z, u = _nested_batch(4)
    _run(dp, x, z, u, 1.0)[0].backward()
    assert dp.replicas[1].W.grad is not None
    dp.cleargrads()
    assert all(param.grad is None for replica in dp.replicas for param in replica.params())


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(TypeError, match='module'):
        L.DataParallel(lambda x: x, ['@numpy'])
    with pytest.raises(ValueError, match='devices'):
        L.DataParallel(L.Linear(3, 2), [])
    with pytest.raises(TypeError, match='devices'):
        L.DataParallel(L.Linear(3, 2), '@numpy')
    with pytest.raises(RuntimeError, match=r'devices\[1\]'):
        L.DataParallel(L.Linear(3, 2), ['@numpy', 'gpu0'])
    with pytest.raises(ValueError, match='batch_dim'):
        L.DataParallel(L.Linear(3, 2), ['@numpy'], batch_dim=-1)
    with pytest.raises(ValueError, match='scalar_reduce'):
        L.DataParallel(L.Linear(3, 2), ['@numpy'], scalar_reduce='max')
    for weights in ([0, 0], [1, -1], [1]):
        with pytest.raises(ValueError, match='weights'):
            L.DataParallel(L.Linear(3, 2), ['@numpy', '@fake'], weights=weights)
    dp = L.DataParallel(L.Linear(3, 2), ['@numpy', '@fake'])
    with pytest.raises(ValueError, match='weights'):
        dp.weights = [-1, 2]
    assert dp.weights is None
    with pytest.raises(ValueError, match='same length'):
        dp(numpy.zeros((4, 3), numpy.float32), numpy.zeros((3, 3), numpy.float32))
    with pytest.raises(RuntimeError, match='setup'):
        DataParallelAccumulateGrads()(optimizers.SGD())
