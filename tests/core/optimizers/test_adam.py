"""Adam and its variants (AdamW, AMSGrad, AdaBound, AMSBound) against the written-out formula."""

from __future__ import annotations

import inspect
import math

import numpy
import pytest
from tests.core.optimizers import _rule_checks as checks

import catena
import catena.links as L
from catena import optimizers

CHAINER_DEFAULTS = (('alpha', 0.001), ('beta1', 0.9), ('beta2', 0.999), ('eps', 1e-8),
                    ('eta', 1.0), ('weight_decay_rate', 0), ('amsgrad', False),
                    ('adabound', False), ('final_lr', 0.1), ('gamma', 1e-3))

# Variants under test: the optimizer factory and the hyperparameters the
# reference formula uses. The AdaBound ones use a large gamma and a small
# final_lr so that some elements are clipped at each bound.
_VARIANTS = {
    'adam': (lambda: optimizers.Adam(alpha=0.1), dict(CHAINER_DEFAULTS, alpha=0.1)),
    'adam_eta_decay': (lambda: optimizers.Adam(alpha=0.1, eta=0.5, weight_decay_rate=0.2),
                       dict(CHAINER_DEFAULTS, alpha=0.1, eta=0.5, weight_decay_rate=0.2)),
    'adamw': (lambda: optimizers.AdamW(alpha=0.1, weight_decay_rate=0.1),
              dict(CHAINER_DEFAULTS, alpha=0.1, weight_decay_rate=0.1)),
    'amsgrad': (lambda: optimizers.AMSGrad(alpha=0.1),
                dict(CHAINER_DEFAULTS, alpha=0.1, amsgrad=True)),
    'adabound': (lambda: optimizers.AdaBound(alpha=0.01, final_lr=0.01, gamma=0.5),
                 dict(CHAINER_DEFAULTS, alpha=0.01, adabound=True, final_lr=0.01, gamma=0.5)),
    'amsbound': (lambda: optimizers.AMSBound(alpha=0.01, final_lr=0.01, gamma=0.5),
                 dict(CHAINER_DEFAULTS, alpha=0.01, amsgrad=True, adabound=True, final_lr=0.01,
                      gamma=0.5)),
}


def _reference_step(param, grad, state, t, hp):
    """One step of the documented formula, in float64; state kept in the param dtype."""
    dtype = param.dtype
    beta1, beta2 = hp['beta1'], hp['beta2']
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
    step = alpha_t / (numpy.sqrt(denom) + hp['eps'])
    if hp['adabound']:
        lower = hp['final_lr'] * (1 - 1 / (hp['gamma'] * t + 1))
        upper = hp['final_lr'] * (1 + 1 / (hp['gamma'] * t))
        step = numpy.clip(step, lower, upper)
    p = param.astype(numpy.float64)
    p = p - hp['eta'] * (step * m + hp['weight_decay_rate'] * p)
    return p.astype(dtype)


def reference(param, grads, **hp):
    names = ('m', 'v', 'vhat') if hp['amsgrad'] else ('m', 'v')
    state = {name: numpy.zeros_like(param) for name in ('m', 'v', 'vhat')}
    for t, grad in enumerate(grads, start=1):
        param = _reference_step(param, grad, state, t, hp)
        yield param, {name: state[name] for name in names}


class TestAdam(checks.OptimizerChecks):
    optimizer = optimizers.Adam
    rule = optimizers.AdamRule
    defaults = CHAINER_DEFAULTS
    hyper = dict(CHAINER_DEFAULTS, alpha=0.05, beta1=0.8, beta2=0.99, eps=1e-6, eta=0.5,
                 weight_decay_rate=0.1)
    own_hyper = (('alpha', 0.01), ('beta1', 0.5), ('eta', 1.0), ('weight_decay_rate', 0.0))
    fit_hyper = {'alpha': 0.05}
    fit_steps = 400
    state_names = ('m', 'v')
    reference = staticmethod(reference)


class TestAdamWithAMSBound(TestAdam):
    """The same checks with AMSGrad's running maximum and AdaBound's bounds on."""

    hyper = dict(TestAdam.hyper, amsgrad=True, adabound=True, final_lr=0.05, gamma=0.5)
    own_hyper = (('final_lr', 0.01), ('gamma', 0.1))
    fit_hyper = {'alpha': 0.05, 'amsgrad': True, 'adabound': True, 'final_lr': 0.05}
    state_names = ('m', 'v', 'vhat')


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

@pytest.mark.parametrize('dtype', checks.DTYPES)
@pytest.mark.parametrize('variant', sorted(_VARIANTS))
def test_variants_follow_the_formula_with_state_in_the_dtype(variant, dtype):
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
        numpy.testing.assert_allclose(link.w.array, expected, **checks.TOLERANCES[dtype])
        rule_state = link.w.update_rule.state
        numpy.testing.assert_allclose(rule_state['m'], state['m'], **checks.TOLERANCES[dtype])
        numpy.testing.assert_allclose(rule_state['v'], state['v'], **checks.TOLERANCES[dtype])
        if hp['amsgrad']:
            numpy.testing.assert_allclose(rule_state['vhat'], state['vhat'],
                                          **checks.TOLERANCES[dtype])
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

@pytest.mark.parametrize('make', [
    lambda: optimizers.AdamW(alpha=0.05, weight_decay_rate=1e-5),
    lambda: optimizers.AMSGrad(alpha=0.05),
    lambda: optimizers.AdaBound(alpha=0.05, final_lr=0.05),
    lambda: optimizers.AMSBound(alpha=0.05, final_lr=0.05),
], ids=['adamw', 'amsgrad', 'adabound', 'amsbound'])
def test_variants_fit_a_linear_regression(make):
    checks.fits_linear(make, steps=400)


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


def test_loads_the_adam_state_chainer_saved():
    serializers = pytest.importorskip('catena.serializers')
    load_npz = getattr(serializers, 'load_npz', None)
    if load_npz is None:
        pytest.skip('catena.serializers.load_npz is not written yet')
    model = L.Classifier(checks.ChainerMLP())
    load_npz(str(checks.CHAINER_DATA / 'mlp_classifier.npz'), model)
    opt = optimizers.Adam().setup(model)
    load_npz(str(checks.CHAINER_DATA / 'mlp_adam_optimizer.npz'), opt)
    with numpy.load(checks.CHAINER_DATA / 'mlp_adam_optimizer.npz') as saved:
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

    x = numpy.load(checks.CHAINER_DATA / 'mlp_x.npy').astype(numpy.float32)
    labels = numpy.arange(len(x), dtype=numpy.int32) % 10
    before = {name: p.array.copy() for name, p in params.items()}
    opt.update(model, x, labels)
    assert opt.t == 4
    for name, param in params.items():
        expected = _reference_step(before[name], param.grad, states[name], 4,
                                   dict(CHAINER_DEFAULTS))
        numpy.testing.assert_allclose(param.array, expected, rtol=1e-5, atol=1e-7)
        numpy.testing.assert_allclose(param.update_rule.state['m'], states[name]['m'],
                                      rtol=1e-5, atol=1e-8)
