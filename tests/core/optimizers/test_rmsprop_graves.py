"""RMSpropGraves: the update formula, training, hyperparameters, float16 and saved state."""

from __future__ import annotations

import inspect

import numpy
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena import optimizers
from catena.optimizers import rmsprop_graves

OPTIMIZER = optimizers.RMSpropGraves
RULE = rmsprop_graves.RMSpropGravesRule
CHAINER_DEFAULTS = {'lr': 0.0001, 'alpha': 0.95, 'momentum': 0.9, 'eps': 0.0001}
# Non-default values, so the formula tests see them used.
HYPER = {'lr': 0.01, 'alpha': 0.9, 'momentum': 0.5, 'eps': 1e-2}
OWN_HYPER = ('momentum', 0.8)
FIT_HYPER = {'lr': 0.01}
FIT_STEPS = 200
STATE_NAMES = ['n', 'g', 'delta']
TOLERANCES = {
    numpy.float16: {'rtol': 5e-3, 'atol': 2e-3},
    numpy.float32: {'rtol': 1e-5, 'atol': 1e-6},
    numpy.float64: {'rtol': 1e-12, 'atol': 1e-14},
}


def initial_state(shape):
    return {'n': numpy.zeros(shape), 'g': numpy.zeros(shape), 'delta': numpy.zeros(shape)}


def reference_step(param, grad, state, *, lr, alpha, momentum, eps):
    """One step of Graves's RMSprop written out in float64; returns the new param and state."""
    n = alpha * state['n'] + (1 - alpha) * grad ** 2
    g = alpha * state['g'] + (1 - alpha) * grad
    delta = momentum * state['delta'] - lr * grad / numpy.sqrt(n - g ** 2 + eps)
    return param + delta, {'n': n, 'g': g, 'delta': delta}


def _link(dtype, rng, names=('w',)):
    link = catena.Link()
    with link.init_scope():
        for name in names:
            setattr(link, name, catena.Parameter(rng.uniform(-1, 1, (3, 4)).astype(dtype)))
    return link


def _regression(rng):
    """A Linear link and the mean squared error of fitting y = x W* + b*."""
    x = rng.normal(size=(64, 3)).astype(numpy.float32)
    true_w = numpy.array([[1.0, -2.0, 0.5], [0.3, 0.8, -1.0]], numpy.float32)
    y = x @ true_w.T + numpy.array([0.5, -0.5], numpy.float32)
    model = L.Linear(3, 2, initialW=rng.normal(scale=0.1, size=(2, 3)).astype(numpy.float32),
                     initial_bias=0.0)
    return model, lambda: F.mean_squared_error(model(x), y)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_two_steps_follow_the_formula(dtype):
    rng = numpy.random.default_rng(0)
    link = _link(dtype, rng)
    optimizer = OPTIMIZER(**HYPER).setup(link)
    expected = link.w.array.astype(numpy.float64)
    state = initial_state(expected.shape)
    for _ in range(2):
        grad = rng.uniform(-1, 1, expected.shape).astype(dtype)
        link.w.grad = grad
        optimizer.update()
        expected, state = reference_step(expected, grad.astype(numpy.float64), state, **HYPER)
        assert link.w.array.dtype == dtype
        numpy.testing.assert_allclose(link.w.array, expected, **TOLERANCES[dtype])
        for name in STATE_NAMES:
            actual = link.w.update_rule.state[name]
            assert actual.dtype == dtype
            numpy.testing.assert_allclose(actual, state[name], **TOLERANCES[dtype])
    assert list(link.w.update_rule.state) == STATE_NAMES
    assert link.w.update_rule.t == 2


def test_a_rule_without_gradient_leaves_the_parameter_alone():
    param = catena.Parameter(numpy.ones((2, 2), numpy.float32))
    RULE(**HYPER).update(param)
    numpy.testing.assert_array_equal(param.array, numpy.ones((2, 2), numpy.float32))


def test_fits_a_linear_regression():
    model, lossfun = _regression(numpy.random.default_rng(1))
    optimizer = OPTIMIZER(**FIT_HYPER).setup(model)
    first = float(lossfun().array)
    for _ in range(FIT_STEPS):
        optimizer.update(lossfun)
    assert float(lossfun().array) < 1e-4 * first


def test_a_parameter_can_have_its_own_hyperparameters():
    rng = numpy.random.default_rng(2)
    link = _link(numpy.float64, rng, names=('w', 'v'))
    optimizer = OPTIMIZER(**HYPER).setup(link)
    name, value = OWN_HYPER
    assert getattr(link.w.update_rule.hyperparam, name) == HYPER[name]  # the parent's
    setattr(link.w.update_rule.hyperparam, name, value)
    start = {p: getattr(link, p).array.copy() for p in ('w', 'v')}
    grads = {p: rng.uniform(-1, 1, (3, 4)) for p in ('w', 'v')}
    for p in ('w', 'v'):
        getattr(link, p).grad = grads[p].copy()
    optimizer.update()
    assert getattr(optimizer.hyperparam, name) == HYPER[name]
    assert getattr(link.v.update_rule.hyperparam, name) == HYPER[name]
    own = {**HYPER, name: value}
    for p, hyper in (('w', own), ('v', HYPER)):
        expected, _ = reference_step(start[p], grads[p], initial_state((3, 4)), **hyper)
        numpy.testing.assert_allclose(getattr(link, p).array, expected, rtol=1e-12)


def test_signature_defaults_and_hyperparameter_proxies():
    signature = inspect.signature(OPTIMIZER)
    assert {n: p.default for n, p in signature.parameters.items()} == CHAINER_DEFAULTS
    optimizer = OPTIMIZER()
    assert optimizer.hyperparam.get_dict() == CHAINER_DEFAULTS
    assert RULE().hyperparam.get_dict() == CHAINER_DEFAULTS
    assert RULE(**HYPER).hyperparam.get_dict() == HYPER
    for name, default in CHAINER_DEFAULTS.items():
        setattr(optimizer, name, HYPER[name])
        assert getattr(optimizer.hyperparam, name) == HYPER[name]
        setattr(optimizer.hyperparam, name, default)
        assert getattr(optimizer, name) == default
    assert OPTIMIZER(**HYPER).hyperparam.get_dict() == HYPER


def test_a_disabled_link_is_not_updated():
    rng = numpy.random.default_rng(3)
    model = catena.Chain()
    with model.init_scope():
        model.frozen = _link(numpy.float32, rng)
        model.trained = _link(numpy.float32, rng)
    optimizer = OPTIMIZER(**HYPER).setup(model)
    model.frozen.disable_update()
    frozen, trained = model.frozen.w.array.copy(), model.trained.w.array.copy()
    optimizer.update(lambda: F.sum(model.frozen.w * model.trained.w))
    numpy.testing.assert_array_equal(model.frozen.w.array, frozen)
    assert not numpy.allclose(model.trained.w.array, trained)


def test_fp32_update_keeps_a_float32_master_copy():
    rng = numpy.random.default_rng(4)
    link = _link(numpy.float16, rng)
    optimizer = OPTIMIZER(**HYPER).setup(link)
    optimizer.use_fp32_update()
    expected = link.w.array.astype(numpy.float64)
    state = initial_state(expected.shape)
    for _ in range(2):
        grad = rng.uniform(-1, 1, expected.shape).astype(numpy.float16)
        link.w.grad = grad
        optimizer.update()
        expected, state = reference_step(expected, grad.astype(numpy.float64), state, **HYPER)
        master = link.w.update_rule._fp32_param.array
        assert master.dtype == numpy.float32
        numpy.testing.assert_allclose(master, expected, **TOLERANCES[numpy.float32])
        numpy.testing.assert_array_equal(link.w.array, master.astype(numpy.float16))
        assert link.w.array.dtype == numpy.float16
        for name in STATE_NAMES:
            assert link.w.update_rule.state[name].dtype == numpy.float32


def test_static_loss_scaling_gives_the_unscaled_update():
    plain, plain_loss = _regression(numpy.random.default_rng(5))
    scaled, scaled_loss = _regression(numpy.random.default_rng(5))
    plain_optimizer = OPTIMIZER(**HYPER).setup(plain)
    scaled_optimizer = OPTIMIZER(**HYPER).setup(scaled)
    scaled_optimizer.loss_scaling(scale=64.0)
    for _ in range(2):
        plain_optimizer.update(plain_loss)
        scaled_optimizer.update(scaled_loss)
    start, _ = _regression(numpy.random.default_rng(5))
    for a, b, before in zip(plain.params(), scaled.params(), start.params()):
        assert not numpy.allclose(a.array, before.array)
        numpy.testing.assert_allclose(b.array, a.array, rtol=1e-6, atol=1e-7)


def _serializer_pair(serializer_module):
    class DictSaver(serializer_module.Serializer):
        def __init__(self, target, path=''):
            self.target, self.path = target, path

        def __getitem__(self, key):
            return DictSaver(self.target, f'{self.path}{key}/')

        def __call__(self, key, value):
            self.target[self.path + key] = numpy.array(value)
            return value

    class DictLoader(serializer_module.Deserializer):
        def __init__(self, target, path=''):
            self.target, self.path = target, path

        def __getitem__(self, key):
            return DictLoader(self.target, f'{self.path}{key}/')

        def __call__(self, key, value):
            stored = self.target[self.path + key]
            if value is None:
                return stored.copy()
            if isinstance(value, numpy.ndarray):
                numpy.copyto(value, stored)
                return value
            return type(value)(stored)

    return DictSaver, DictLoader


def test_saved_state_lets_a_new_optimizer_continue_exactly():
    serializer_module = pytest.importorskip('catena.serializer')
    DictSaver, DictLoader = _serializer_pair(serializer_module)
    model, lossfun = _regression(numpy.random.default_rng(6))
    optimizer = OPTIMIZER(**HYPER).setup(model)
    for _ in range(2):
        optimizer.update(lossfun)
    saved = {}
    optimizer.serialize(DictSaver(saved))
    assert {f'W/{name}' for name in STATE_NAMES} <= set(saved)

    resumed, resumed_loss = _regression(numpy.random.default_rng(6))
    resumed.copyparams(model)
    resumed_optimizer = OPTIMIZER(**HYPER).setup(resumed)
    resumed_optimizer.serialize(DictLoader(saved))
    assert resumed_optimizer.t == 2 and resumed.W.update_rule.t == 2
    optimizer.update(lossfun)
    resumed_optimizer.update(resumed_loss)
    for a, b in zip(model.params(), resumed.params()):
        numpy.testing.assert_array_equal(b.array, a.array)
        for name in STATE_NAMES:
            numpy.testing.assert_array_equal(b.update_rule.state[name],
                                             a.update_rule.state[name])
