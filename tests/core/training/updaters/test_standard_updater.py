"""StandardUpdater and ParallelUpdater: one step, epochs, loss scale, serialize keys."""

from __future__ import annotations

import numpy
import pytest

import catena.functions as F
import catena.links as L
from catena import datasets, iterators, optimizers, training


def _data(n=12):
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((n, 3)).astype(numpy.float32)
    y = rng.standard_normal((n, 2)).astype(numpy.float32)
    return x, y


class _Regressor(L.Linear):
    def __init__(self):
        super().__init__(3, 2, initialW=numpy.linspace(-1, 1, 6).reshape(2, 3))

    def forward(self, x, y):
        return F.mean_squared_error(super().forward(x), y)


def _updater(batch=4, **kwargs):
    x, y = _data()
    model = _Regressor()
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, y), batch, shuffle=False)
    return training.StandardUpdater(iterator, optimizer, **kwargs), model


def test_one_update_is_an_sgd_step_on_the_converted_batch():
    updater, model = _updater()
    x, y = _data()
    W, b = model.W.array.copy(), model.b.array.copy()
    residual = 2 * (x[:4] @ W.T + b - y[:4]) / y[:4].size
    updater.update()
    numpy.testing.assert_allclose(model.W.array, W - 0.1 * residual.T @ x[:4], rtol=1e-5)
    numpy.testing.assert_allclose(model.b.array, b - 0.1 * residual.sum(axis=0), rtol=1e-5)
    assert updater.iteration == 1
    assert updater.epoch_detail == pytest.approx(1 / 3)


def test_epochs_reach_the_optimizer_automatically():
    updater, _ = _updater()
    optimizer = updater.get_optimizer('main')
    for _ in range(6):
        updater.update()
    assert (updater.epoch, optimizer.epoch) == (2, 2)
    assert updater.is_new_epoch
    manual, _ = _updater(auto_new_epoch=False)
    for _ in range(3):
        manual.update()
    assert manual.get_optimizer('main').epoch == 0


def test_dict_batches_become_keyword_arguments():
    x, y = _data()
    model = _Regressor()
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    iterator = iterators.SerialIterator(datasets.DictDataset(x=x, y=y), 4, shuffle=False)
    updater = training.StandardUpdater(iterator, optimizer)
    W = model.W.array.copy()
    updater.update()
    assert not numpy.array_equal(model.W.array, W)


def test_a_loss_scale_gives_the_same_step():
    plain, plain_model = _updater()
    scaled, scaled_model = _updater(loss_scale=64.0)
    plain.update()
    scaled.update()
    numpy.testing.assert_allclose(scaled_model.W.array, plain_model.W.array, rtol=1e-6)
    assert scaled.get_optimizer('main')._loss_scale == 64.0


def test_arguments_are_checked():
    x, y = _data()
    optimizer = optimizers.SGD().setup(_Regressor())
    with pytest.raises(TypeError,
                       match='iterator must be a catena.dataset.Iterator.*got \\[array'):
        training.StandardUpdater([x, y], optimizer)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, y), 4)
    with pytest.raises(ValueError, match="'main' entry"):
        training.StandardUpdater({'train': iterator}, optimizer)


class _Recorder:
    def __init__(self):
        self.keys = []

    def __getitem__(self, key):
        child = _Recorder()
        child.keys = self.keys
        child.prefix = getattr(self, 'prefix', '') + key + '/'
        return child

    def __call__(self, key, value):
        self.keys.append(getattr(self, 'prefix', '') + key)
        return value


def test_serialize_uses_chainer_key_layout():
    updater, _ = _updater()
    updater.update()
    recorder = _Recorder()
    updater.serialize(recorder)
    assert 'iterator:main/current_position' in recorder.keys
    assert 'optimizer:main/t' in recorder.keys
    assert 'model:main/W' in recorder.keys
    assert recorder.keys[-1] == 'iteration'


def test_parallel_updater_sums_the_replicas_gradients():
    x, y = _data()
    model = _Regressor()
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, y), 4, shuffle=False)
    updater = training.ParallelUpdater(iterator, optimizer,
                                       devices={'main': '@numpy', 'second': '@numpy'})
    W, b = model.W.array.copy(), model.b.array.copy()
    grad_W = numpy.zeros_like(W)
    for part in (slice(0, 4, 2), slice(1, 4, 2)):
        residual = 2 * (x[part] @ W.T + b - y[part]) / y[part].size
        grad_W += residual.T @ x[part]
    updater.update()
    numpy.testing.assert_allclose(model.W.array, W - 0.1 * grad_W, rtol=1e-5)
    second = updater._models['second']
    numpy.testing.assert_array_equal(second.W.array, model.W.array)
    assert second.W is not model.W
    with pytest.raises(ValueError, match='models or devices'):
        training.ParallelUpdater(iterator, optimizer)


def test_multiprocess_parallel_updater_says_it_is_not_implemented():
    assert not training.updaters.MultiprocessParallelUpdater.available()
    with pytest.raises(NotImplementedError, match='ParallelUpdater'):
        training.updaters.MultiprocessParallelUpdater([], None)


def test_optimizers_may_have_any_names():
    x, y = _data()
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, y), 4)
    gen, dis = optimizers.SGD().setup(_Regressor()), optimizers.SGD().setup(_Regressor())
    updater = training.StandardUpdater(iterator, {'gen': gen, 'dis': dis})
    assert updater.get_all_optimizers() == {'gen': gen, 'dis': dis}
