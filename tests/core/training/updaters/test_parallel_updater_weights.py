"""ParallelUpdater(weights=...): contiguous workload-weighted chunks, each example counted once."""

from __future__ import annotations

import numpy
import pytest

import catena
import catena.functions as F
from catena import datasets, iterators, optimizers, training

_TOL = {'rtol': 1e-12, 'atol': 1e-13}


def _data(n=8):
    rng = numpy.random.default_rng(2)
    return rng.standard_normal((n, 3)), rng.standard_normal((n, 2))


class _Regressor(catena.Chain):
    """Mean squared error of ``x W^T`` against ``t``; records the batch sizes it sees."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.W = catena.Parameter(numpy.linspace(-1.0, 1.0, 6).reshape(2, 3))
        self.seen = []

    def forward(self, x, t):
        self.seen.append(numpy.asarray(x)[:, 0].round(12).tolist())
        return F.mean_squared_error(F.linear(x, self.W), t)


def _mean_grad(W, x, t):
    """The gradient of the batch-mean squared error, in NumPy."""
    return 2 * (x @ W.T - t).T @ x / t.size


def _updater(batch, **kwargs):
    x, t = _data()
    model = _Regressor()
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), batch, shuffle=False)
    updater = training.ParallelUpdater(iterator, optimizer,
                                       devices={'main': '@numpy', 'second': '@fake'}, **kwargs)
    return updater, model


def test_weights_cut_the_batch_into_contiguous_weighted_chunks():
    updater, model = _updater(8, weights={'main': 3, 'second': 1})
    x, t = _data()
    W = model.W.array.copy()
    updater.update()
    second = updater._models['second']
    assert model.seen == [x[:6, 0].round(12).tolist()]
    assert second.seen == [x[6:, 0].round(12).tolist()]
    # Two models: the update is twice the full-batch mean gradient, each example once.
    numpy.testing.assert_allclose(model.W.array, W - 0.1 * 2 * _mean_grad(W, x, t), **_TOL)
    numpy.testing.assert_array_equal(numpy.asarray(second.W.array), model.W.array)


def test_equal_weights_give_the_same_update_as_round_robin_for_even_chunks():
    dealt, dealt_model = _updater(4)
    weighted, weighted_model = _updater(4, weights={'main': 1.0, 'second': 1.0})
    for _ in range(3):
        dealt.update()
        weighted.update()
    numpy.testing.assert_allclose(weighted_model.W.array, dealt_model.W.array, **_TOL)
    assert dealt_model.seen[0] != weighted_model.seen[0]  # different examples, same sum


def test_a_model_with_an_empty_chunk_sits_the_step_out():
    updater, model = _updater(1, weights={'main': 1, 'second': 1})
    x, t = _data()
    W = model.W.array.copy()
    updater.update()
    assert updater._models['second'].seen == []
    numpy.testing.assert_allclose(model.W.array, W - 0.1 * 2 * _mean_grad(W, x[:1], t[:1]),
                                  **_TOL)
    updater, model = _updater(8, weights={'main': 0, 'second': 5})
    updater.update()
    assert model.seen == [] and len(updater._models['second'].seen[0]) == 8


def test_default_still_deals_examples_round_robin():
    updater, model = _updater(4)
    x, _ = _data()
    updater.update()
    assert model.seen == [x[0:4:2, 0].round(12).tolist()]
    assert updater._models['second'].seen == [x[1:4:2, 0].round(12).tolist()]


def test_bad_weights_raise_clear_errors():
    with pytest.raises(ValueError, match='weights'):
        _updater(4, weights={'main': 1})
    with pytest.raises(ValueError, match='weights'):
        _updater(4, weights={'main': 1, 'second': -1})
    with pytest.raises(ValueError, match='weights'):
        _updater(4, weights={'main': 0, 'second': 0})
    with pytest.raises(TypeError, match='weights'):
        _updater(4, weights=[1, 1])
