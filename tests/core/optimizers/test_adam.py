"""Adam and its variants (AdamW, AMSGrad, AdaBound, AMSBound) against the written-out formula."""

from __future__ import annotations

import copy
import inspect
import math
import pathlib

import numpy
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena import optimizers

_DATA = pathlib.Path(__file__).resolve().parents[2] / 'data' / 'chainer-7.8.1'

_TOLERANCE = {
    numpy.float16: {'rtol': 5e-3, 'atol': 5e-3},
    numpy.float32: {'rtol': 1e-5, 'atol': 1e-6},
    numpy.float64: {'rtol': 1e-12, 'atol': 1e-14},
}

# Variants under test: the optimizer factory and the hyperparameters the
# reference formula uses. The AdaBound ones use a large gamma and a small
# final_lr so that some elements are clipped at each bound.
_VARIANTS = {
    'adam': (lambda: optimizers.Adam(alpha=0.1),
             dict(alpha=0.1, eta=1.0, weight_decay_rate=0.0, amsgrad=False, adabound=False)),
    'adam_eta_decay': (
        lambda: optimizers.Adam(alpha=0.1, eta=0.5, weight_decay_rate=0.2),
        dict(alpha=0.1, eta=0.5, weight_decay_rate=0.2, amsgrad=False, adabound=False)),
    'adamw': (lambda: optimizers.AdamW(alpha=0.1, weight_decay_rate=0.1),
              dict(alpha=0.1, eta=1.0, weight_decay_rate=0.1, amsgrad=False, adabound=False)),
    'amsgrad': (lambda: optimizers.AMSGrad(alpha=0.1),
                dict(alpha=0.1, eta=1.0, weight_decay_rate=0.0, amsgrad=True, adabound=False)),
    'adabound': (lambda: optimizers.AdaBound(alpha=0.01, final_lr=0.01, gamma=0.5),
                 dict(alpha=0.01, eta=1.0, weight_decay_rate=0.0, amsgrad=False, adabound=True,
                      final_lr=0.01, gamma=0.5)),
    'amsbound': (lambda: optimizers.AMSBound(alpha=0.01, final_lr=0.01, gamma=0.5),
                 dict(alpha=0.01, eta=1.0, weight_decay_rate=0.0, amsgrad=True, adabound=True,
                      final_lr=0.01, gamma=0.5)),
}


def _reference_step(param, grad, state, t, hp, initial_alpha=None):
    """One step of the documented formula, in float64; state kept in the param dtype."""
    dtype = param.dtype
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    g = grad.astype(numpy.float64)
    m = state['m'].astype(numpy.float64)
    v = state['v'].astype(numpy.float64)
    m = m + (1 - beta1) * (g - m)
    v = v + (1 - beta2) * (g * g - v)
    state['m'], state['v'] = m.astype(dtype), v.astype(dtype)
    denom = v
    if hp['amsgrad']:
        denom = numpy.maximum(state['vhat'].astype(numpy.float64), v)
        state['vhat'] = denom.astype(dtype)
    alpha_t = hp['alpha'] * math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
    step = alpha_t / (numpy.sqrt(denom) + eps)
    if hp['adabound']:
        final_lr = hp['final_lr'] * hp['alpha'] / (initial_alpha or hp['alpha'])
        lower = final_lr * (1 - 1 / (hp['gamma'] * t + 1))
        upper = final_lr * (1 + 1 / (hp['gamma'] * t))
        step = numpy.clip(step, lower, upper)
    p = param.astype(numpy.float64)
    p = p - hp['eta'] * (step * m + hp['weight_decay_rate'] * p)
    return p.astype(dtype)


def _link_with(array):
    link = catena.Link()
    with link.init_scope():
        link.w = catena.Parameter(array)
    return link


def _grads(dtype, seed):
    rng = numpy.random.default_rng(seed)
    magnitude = numpy.geomspace(0.5, 50.0, 12)
    sign = rng.choice([-1.0, 1.0], size=12)
    return (rng.permutation(magnitude) * sign).reshape(3, 4).astype(dtype)


# ------------------------------------------------------------------ the formula

@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize('variant', sorted(_VARIANTS))
def test_two_steps_match_the_formula(variant, dtype):
    make, hp = _VARIANTS[variant]
    start = numpy.linspace(-1, 1, 12).reshape(3, 4).astype(dtype)
    link = _link_with(start.copy())
    opt = make().setup(link)
    expected = start.copy()
    state = {'m': numpy.zeros_like(start), 'v': numpy.zeros_like(start),
             'vhat': numpy.zeros_like(start)}
    # The second gradient is much smaller, so v shrinks and AMSGrad's vhat differs from v.
    for t, grad in enumerate([_grads(dtype, 0), _grads(dtype, 1) * dtype(0.05)], start=1):
        link.w.grad = grad.copy()
        opt.update()
        expected = _reference_step(expected, grad, state, t, hp)
        assert link.w.array.dtype == dtype
        numpy.testing.assert_allclose(link.w.array, expected, **_TOLERANCE[dtype])
        rule_state = link.w.update_rule.state
        numpy.testing.assert_allclose(rule_state['m'], state['m'], **_TOLERANCE[dtype])
        numpy.testing.assert_allclose(rule_state['v'], state['v'], **_TOLERANCE[dtype])
        if hp['amsgrad']:
            numpy.testing.assert_allclose(rule_state['vhat'], state['vhat'],
                                          **_TOLERANCE[dtype])
    assert (opt.t, link.w.update_rule.t) == (2, 2)


def test_adabound_clips_at_both_bounds_in_this_setup():
    # Guards the formula test above: its AdaBound gradients reach both bounds.
    hp = _VARIANTS['adabound'][1]
    grad = _grads(numpy.float64, 0)
    v = 0.001 * grad * grad
    step = hp['alpha'] * math.sqrt(0.001) / 0.1 / (numpy.sqrt(v) + 1e-8)
    lower = hp['final_lr'] * (1 - 1 / (hp['gamma'] + 1))
    upper = hp['final_lr'] * (1 + 1 / hp['gamma'])
    assert (step < lower).any() and (step > upper).any()
    assert ((step > lower) & (step < upper)).any()


def test_amsgrad_keeps_the_running_maximum_of_v():
    link = _link_with(numpy.zeros(3, dtype=numpy.float32))
    opt = optimizers.AMSGrad().setup(link)
    for grad in (4.0, 0.0):
        link.w.grad = numpy.full(3, grad, dtype=numpy.float32)
        opt.update()
    state = link.w.update_rule.state
    assert sorted(state) == ['m', 'v', 'vhat']
    assert (state['vhat'] > state['v']).all()
    numpy.testing.assert_allclose(state['vhat'], 0.001 * 16, rtol=1e-6)


def test_adam_without_amsgrad_has_only_m_and_v():
    link = _link_with(numpy.zeros((2, 2), dtype=numpy.float32))
    optimizers.Adam().setup(link)
    link.w.grad = numpy.ones((2, 2), dtype=numpy.float32)
    link.w.update_rule.update(link.w)
    state = link.w.update_rule.state
    assert sorted(state) == ['m', 'v']
    assert all(a.dtype == numpy.float32 and a.shape == (2, 2) for a in state.values())


def test_amsgrad_switched_on_later_creates_vhat():
    link = _link_with(numpy.zeros(2, dtype=numpy.float32))
    opt = optimizers.Adam().setup(link)
    link.w.grad = numpy.ones(2, dtype=numpy.float32)
    opt.update()
    opt.amsgrad = True
    link.w.grad = numpy.ones(2, dtype=numpy.float32)
    opt.update()
    state = link.w.update_rule.state
    numpy.testing.assert_array_equal(state['vhat'], state['v'])


def test_missing_gradient_leaves_the_parameter_unchanged():
    link = _link_with(numpy.ones(3, dtype=numpy.float32))
    optimizers.Adam().setup(link)
    rule = link.w.update_rule
    rule.update(link.w)
    numpy.testing.assert_array_equal(link.w.array, numpy.ones(3))
    assert rule.t == 1


def test_eps_that_underflows_the_dtype_is_refused():
    link = _link_with(numpy.ones(3, dtype=numpy.float32))
    optimizers.Adam(eps=1e-60).setup(link)
    link.w.grad = numpy.ones(3, dtype=numpy.float32)
    with pytest.raises(ValueError, match='eps'):
        link.w.update_rule.update(link.w)
    numpy.testing.assert_array_equal(link.w.array, numpy.ones(3))


def test_float16_parameter_with_zero_gradient_stays_finite():
    # eps = 1e-8 is 0 in float16; the step is computed in float32.
    link = _link_with(numpy.ones(4, dtype=numpy.float16))
    opt = optimizers.Adam().setup(link)
    link.w.grad = numpy.zeros(4, dtype=numpy.float16)
    opt.update()
    numpy.testing.assert_array_equal(link.w.array, numpy.ones(4))


# ------------------------------------------------------- learning rate and bounds

def test_alpha_t_and_lr_follow_the_update_count():
    link = _link_with(numpy.zeros(2, dtype=numpy.float32))
    opt = optimizers.Adam(alpha=0.01, beta1=0.8, beta2=0.99).setup(link)
    with pytest.raises(RuntimeError, match='before the first update'):
        opt.alpha_t
    with pytest.raises(RuntimeError, match='before the first update'):
        link.w.update_rule.alpha_t
    for _ in range(3):
        link.w.grad = numpy.ones(2, dtype=numpy.float32)
        opt.update()
    expected = 0.01 * math.sqrt(1 - 0.99 ** 3) / (1 - 0.8 ** 3)
    assert opt.alpha_t == pytest.approx(expected, rel=1e-12)
    assert link.w.update_rule.alpha_t == pytest.approx(expected, rel=1e-12)
    with pytest.warns(DeprecationWarning, match='alpha_t'):
        assert opt.lr == pytest.approx(expected, rel=1e-12)
    with pytest.warns(DeprecationWarning, match='alpha_t'):
        assert link.w.update_rule.lr == pytest.approx(expected, rel=1e-12)
    opt.t = 1
    assert opt.alpha_t == pytest.approx(0.01 * math.sqrt(0.01) / 0.2, rel=1e-12)


def test_bounds_follow_t_and_scale_with_alpha():
    link = _link_with(numpy.zeros(2, dtype=numpy.float32))
    opt = optimizers.AdaBound(alpha=0.002, final_lr=0.2, gamma=0.01).setup(link)
    rule = link.w.update_rule
    assert rule.initial_alpha == 0.002
    with pytest.raises(RuntimeError, match='AdaBound'):
        rule.bounds
    link.w.grad = numpy.ones(2, dtype=numpy.float32)
    opt.update()
    opt.update()
    assert rule.bounds == pytest.approx((0.2 * (1 - 1 / 1.02), 0.2 * (1 + 1 / 0.02)))
    opt.alpha = 0.001
    assert rule.bounds == pytest.approx((0.1 * (1 - 1 / 1.02), 0.1 * (1 + 1 / 0.02)))


def test_adabound_switched_on_after_setup_remembers_alpha_at_first_update():
    link = _link_with(numpy.zeros(2, dtype=numpy.float32))
    opt = optimizers.Adam(alpha=0.004).setup(link)
    rule = link.w.update_rule
    assert rule.initial_alpha is None
    opt.adabound = True
    link.w.grad = numpy.ones(2, dtype=numpy.float32)
    opt.update()
    assert rule.initial_alpha == 0.004


# ---------------------------------------------------------- optimizer behaviour

def _regression_data(seed=0):
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal((64, 3)).astype(numpy.float32)
    w_true = numpy.array([[1.5, -2.0, 0.5]], dtype=numpy.float32)
    y = x @ w_true.T + numpy.float32(0.3)
    return x, y


@pytest.mark.parametrize('make', [
    lambda: optimizers.Adam(alpha=0.05),
    lambda: optimizers.AdamW(alpha=0.05, weight_decay_rate=1e-5),
    lambda: optimizers.AMSGrad(alpha=0.05),
    lambda: optimizers.AdaBound(alpha=0.05, final_lr=0.05),
    lambda: optimizers.AMSBound(alpha=0.05, final_lr=0.05),
], ids=['adam', 'adamw', 'amsgrad', 'adabound', 'amsbound'])
def test_fits_a_linear_regression(make):
    x, y = _regression_data()
    model = L.Linear(3, 1, initialW=numpy.zeros((1, 3), dtype=numpy.float32))
    opt = make().setup(model)

    def lossfun():
        return F.mean_squared_error(model(x), y)

    first = float(lossfun().array)
    for _ in range(400):
        opt.update(lossfun)
    assert first > 1.0
    assert float(lossfun().array) < 1e-3


def test_per_parameter_hyperparameter_changes_only_that_parameter():
    model = L.Linear(3, 2, initialW=numpy.ones((2, 3), dtype=numpy.float32))
    opt = optimizers.Adam(alpha=0.1).setup(model)
    model.W.update_rule.hyperparam.alpha = 0.0
    x = numpy.ones((4, 3), dtype=numpy.float32)
    opt.update(lambda: F.sum(model(x)))
    numpy.testing.assert_array_equal(model.W.array, numpy.ones((2, 3)))
    assert (model.b.array < 0).all()
    assert opt.alpha == 0.1
    assert model.b.update_rule.hyperparam.alpha == 0.1


def test_hyperparameter_proxies_read_and_write_the_optimizer_hyperparam():
    opt = optimizers.Adam()
    defaults = dict(alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8, eta=1.0,
                    weight_decay_rate=0, amsgrad=False, adabound=False, final_lr=0.1,
                    gamma=1e-3)
    assert opt.hyperparam.get_dict() == defaults
    for index, name in enumerate(defaults):
        assert getattr(opt, name) == defaults[name]
        setattr(opt, name, index + 0.5)
        assert getattr(opt.hyperparam, name) == index + 0.5


@pytest.mark.parametrize('cls, parameters, flags', [
    (optimizers.Adam, ['alpha', 'beta1', 'beta2', 'eps', 'eta', 'weight_decay_rate',
                       'amsgrad', 'adabound', 'final_lr', 'gamma'], (False, False)),
    (optimizers.AdamW, ['alpha', 'beta1', 'beta2', 'eps', 'eta', 'weight_decay_rate'],
     (False, False)),
    (optimizers.AMSGrad, ['alpha', 'beta1', 'beta2', 'eps', 'eta'], (True, False)),
    (optimizers.AdaBound, ['alpha', 'beta1', 'beta2', 'final_lr', 'gamma', 'eps', 'eta'],
     (False, True)),
    (optimizers.AMSBound, ['alpha', 'beta1', 'beta2', 'final_lr', 'gamma', 'eps', 'eta'],
     (True, True)),
])
def test_signatures_defaults_and_variant_flags(cls, parameters, flags):
    signature = inspect.signature(cls)
    assert list(signature.parameters) == parameters
    opt = cls()
    for name, parameter in signature.parameters.items():
        assert getattr(opt, name) == parameter.default
    assert (opt.amsgrad, opt.adabound) == flags
    positional = cls(*[0.5 + i for i in range(len(parameters))])
    for index, name in enumerate(parameters):
        assert getattr(positional, name) == 0.5 + index


def test_rule_keyword_hyperparameters_override_the_parent():
    parent = optimizers.Adam(alpha=0.1).hyperparam
    rule = optimizers.AdamRule(parent, alpha=0.2, amsgrad=True)
    assert (rule.hyperparam.alpha, rule.hyperparam.amsgrad, rule.hyperparam.beta1) == \
        (0.2, True, 0.9)
    standalone = optimizers.AdamRule(gamma=0.5)
    assert (standalone.hyperparam.alpha, standalone.hyperparam.gamma) == (0.001, 0.5)
    assert optimizers.AdamRule.is_elementwise


def test_disabled_parameter_is_not_updated():
    model = L.Linear(3, 2, initialW=numpy.ones((2, 3), dtype=numpy.float32))
    opt = optimizers.Adam(alpha=0.1).setup(model)
    model.disable_update()
    x = numpy.ones((4, 3), dtype=numpy.float32)
    opt.update(lambda: F.sum(model(x)))
    numpy.testing.assert_array_equal(model.W.array, numpy.ones((2, 3)))
    numpy.testing.assert_array_equal(model.b.array, numpy.zeros(2))
    assert model.W.update_rule.t == 0 and model.W.update_rule.state is None


def test_fp32_update_keeps_a_float32_master_copy():
    start = numpy.linspace(-1, 1, 12).reshape(3, 4)
    half = _link_with(start.astype(numpy.float16))
    single = _link_with(start.astype(numpy.float16).astype(numpy.float32))
    opt_half = optimizers.Adam(alpha=0.01)
    opt_half.use_fp32_update()
    opt_half.setup(half)
    opt_single = optimizers.Adam(alpha=0.01).setup(single)
    for seed in range(3):
        grad = _grads(numpy.float16, seed)
        half.w.grad = grad.copy()
        single.w.grad = grad.astype(numpy.float32)
        opt_half.update()
        opt_single.update()
    rule = half.w.update_rule
    assert rule._fp32_param.array.dtype == numpy.float32
    assert rule.state['m'].dtype == numpy.float32
    numpy.testing.assert_allclose(rule._fp32_param.array, single.w.array, rtol=1e-6)
    assert half.w.array.dtype == numpy.float16
    numpy.testing.assert_array_equal(half.w.array, single.w.array.astype(numpy.float16))


def test_static_loss_scaling_gives_the_unscaled_update():
    x, y = _regression_data()
    results = []
    for scale in (None, 128.0):
        model = L.Linear(3, 1, initialW=numpy.full((1, 3), 0.1, dtype=numpy.float32))
        opt = optimizers.Adam(alpha=0.01).setup(model)
        if scale is not None:
            opt.loss_scaling(scale=scale)
        for _ in range(3):
            opt.update(lambda: F.mean_squared_error(model(x), y))  # noqa: B023
        results.append((model.W.array.copy(), model.b.array.copy()))
    numpy.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5)
    numpy.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5)


# ------------------------------------------------------------------ save / load

class _DictWriter:
    """Writes what an optimizer serializes into a flat dict keyed like an npz file."""

    def __init__(self, target, prefix=''):
        self.target = target
        self.prefix = prefix

    def __getitem__(self, key):
        return _DictWriter(self.target, f'{self.prefix}{key}/')

    def __call__(self, key, value):
        self.target[self.prefix + key] = copy.deepcopy(value)
        return value


class _DictReader:
    """Reads values back in place from such a dict (the target state must exist)."""

    def __init__(self, source, prefix=''):
        self.source = source
        self.prefix = prefix

    def __getitem__(self, key):
        return _DictReader(self.source, f'{self.prefix}{key}/')

    def __call__(self, key, value):
        loaded = self.source[self.prefix + key]
        if isinstance(value, numpy.ndarray):
            value[...] = loaded
            return value
        return type(value)(loaded)


def _train(opt, model, x, y, steps):
    for _ in range(steps):
        opt.update(lambda: F.mean_squared_error(model(x), y))


@pytest.mark.parametrize('make', [optimizers.Adam, optimizers.AMSBound])
def test_saved_state_continues_like_the_uninterrupted_run(make):
    x, y = _regression_data()
    initial_w = numpy.full((1, 3), 0.1, dtype=numpy.float32)
    model = L.Linear(3, 1, initialW=initial_w)
    opt = make(alpha=0.05).setup(model)
    _train(opt, model, x, y, 3)
    saved_state = {}
    opt.serialize(_DictWriter(saved_state))
    saved_params = {name: p.array.copy() for name, p in model.namedparams()}
    assert saved_state['t'] == 3 and saved_state['W/t'] == 3
    assert {'W/m', 'W/v', 'b/m', 'b/v'} <= set(saved_state)
    _train(opt, model, x, y, 2)

    resumed = L.Linear(3, 1, initialW=initial_w)
    resumed_opt = make(alpha=0.05).setup(resumed)
    _train(resumed_opt, resumed, x, y, 1)  # creates the state arrays to load into
    for name, p in resumed.namedparams():
        p.array[...] = saved_params[name]
    resumed_opt.serialize(_DictReader(saved_state))
    assert resumed_opt.t == 3 and resumed.W.update_rule.t == 3
    _train(resumed_opt, resumed, x, y, 2)
    numpy.testing.assert_array_equal(resumed.W.array, model.W.array)
    numpy.testing.assert_array_equal(resumed.b.array, model.b.array)


class _MLP(catena.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(20, 30)
            self.l2 = L.Linear(30, 10)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def test_loads_the_adam_state_chainer_saved():
    serializers = pytest.importorskip('catena.serializers')
    load_npz = getattr(serializers, 'load_npz', None)
    if load_npz is None:
        pytest.skip('catena.serializers.load_npz is not written yet')
    model = L.Classifier(_MLP())
    load_npz(str(_DATA / 'mlp_classifier.npz'), model)
    opt = optimizers.Adam().setup(model)
    load_npz(str(_DATA / 'mlp_adam_optimizer.npz'), opt)
    with numpy.load(_DATA / 'mlp_adam_optimizer.npz') as saved:
        assert opt.t == 3 and opt.epoch == 0
        params = dict(model.namedparams())
        for name, param in params.items():
            key = name[1:]
            rule = param.update_rule
            assert rule.t == int(saved[f'{key}/t']) == 3
            numpy.testing.assert_array_equal(rule.state['m'], saved[f'{key}/m'])
            numpy.testing.assert_array_equal(rule.state['v'], saved[f'{key}/v'])
        states = {name: {'m': p.update_rule.state['m'].copy(),
                         'v': p.update_rule.state['v'].copy()} for name, p in params.items()}

    x = numpy.load(_DATA / 'mlp_x.npy').astype(numpy.float32)
    labels = numpy.arange(len(x), dtype=numpy.int32) % 10
    before = {name: p.array.copy() for name, p in params.items()}
    opt.update(model, x, labels)
    assert opt.t == 4
    hp = {'alpha': 0.001, 'eta': 1.0, 'weight_decay_rate': 0.0, 'amsgrad': False,
          'adabound': False}
    for name, param in params.items():
        expected = _reference_step(before[name], param.grad, states[name], 4, hp)
        numpy.testing.assert_allclose(param.array, expected, rtol=1e-5, atol=1e-7)
        numpy.testing.assert_allclose(param.update_rule.state['m'], states[name]['m'],
                                      rtol=1e-5, atol=1e-8)
