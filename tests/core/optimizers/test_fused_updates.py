"""The one-pass update steps (catena._cupdate) against the rules' NumPy code.

The update rules' own tests run whichever path is in use (the compiled
steps, or NumPy under ``CATENA_ENGINE=python``); here both paths run on the
same arrays and must agree to within a few roundings, and every array that
the loops cannot take must come back untouched with False.
"""

from __future__ import annotations

import numpy
import pytest

import catena
from catena import optimizers
from catena.optimizers import _fused

needs_compiled = pytest.mark.skipif(_fused._compiled is None,
                                    reason='catena._cupdate is not in use')

FLOATS = [numpy.float32, numpy.float64]


def _close(dtype):
    eps = float(numpy.finfo(dtype).eps)
    return {'rtol': 8 * eps, 'atol': 8 * eps}


def _arrays(dtype, shape=(37, 129), count=4, seed=0):
    rng = numpy.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(dtype) for _ in range(count)]


def _run_rule(rule_factory, dtype, fused, monkeypatch, steps=3):
    """Runs a rule on one parameter for a few steps; returns its data and state."""
    with monkeypatch.context() as patch:
        if not fused:
            patch.setattr(_fused, '_compiled', None)
        rule = rule_factory()
        data, *grads = _arrays(dtype, count=steps + 1)
        param = catena.Variable(data)
        for grad in grads:
            param.grad = grad
            rule.update(param)
        return param.array, {name: value.copy() for name, value in rule.state.items()}


RULES = {
    'SGD': lambda: optimizers.SGDRule(lr=0.1),
    'MomentumSGD': lambda: optimizers.MomentumSGDRule(lr=0.1, momentum=0.8),
    'Adam': lambda: optimizers.AdamRule(alpha=0.01, beta1=0.8, beta2=0.9, eps=1e-6),
    'Adam eta and weight decay': lambda: optimizers.AdamRule(
        alpha=0.01, eta=0.5, weight_decay_rate=0.1),
}


@needs_compiled
@pytest.mark.parametrize('dtype', FLOATS)
@pytest.mark.parametrize('name', sorted(RULES))
def test_the_compiled_step_computes_what_the_numpy_code_does(name, dtype, monkeypatch):
    factory = RULES[name]
    fused_data, fused_state = _run_rule(factory, dtype, True, monkeypatch)
    numpy_data, numpy_state = _run_rule(factory, dtype, False, monkeypatch)
    numpy.testing.assert_allclose(fused_data, numpy_data, **_close(dtype))
    assert fused_data.dtype == dtype
    assert fused_state.keys() == numpy_state.keys()
    for key in fused_state:
        numpy.testing.assert_allclose(fused_state[key], numpy_state[key], **_close(dtype))


@needs_compiled
@pytest.mark.parametrize('dtype', FLOATS)
def test_momentum_sgd_matches_an_independent_float64_formula(dtype):
    param, velocity, grad = _arrays(dtype, count=3)
    expected_velocity = 0.9 * velocity.astype(numpy.float64) - 0.01 * grad.astype(numpy.float64)
    expected_param = param.astype(numpy.float64) + expected_velocity
    assert _fused.momentum_sgd(param, velocity, grad, 0.01, 0.9)
    tolerance = {'rtol': 1e-6, 'atol': 1e-6} if dtype == numpy.float32 else {'rtol': 1e-14}
    numpy.testing.assert_allclose(velocity, expected_velocity, **tolerance)
    numpy.testing.assert_allclose(param, expected_param, **tolerance)


@needs_compiled
@pytest.mark.parametrize('dtype', FLOATS)
def test_sgd_matches_an_independent_float64_formula(dtype):
    param, grad = _arrays(dtype, count=2)
    expected = param.astype(numpy.float64) - 0.3 * grad.astype(numpy.float64)
    assert _fused.sgd(param, grad, 0.3)
    tolerance = {'rtol': 1e-6, 'atol': 1e-6} if dtype == numpy.float32 else {'rtol': 1e-14}
    numpy.testing.assert_allclose(param, expected, **tolerance)


@needs_compiled
def test_adam_matches_an_independent_float64_formula():
    param, m, grad = _arrays(numpy.float64, count=3)
    v = numpy.abs(_arrays(numpy.float64, count=1, seed=1)[0])
    b1, b2, alpha_t, eps, eta, decay = 0.1, 0.01, 0.003, 1e-8, 0.5, 0.2
    m_new = m + b1 * (grad - m)
    v_new = v + b2 * (grad * grad - v)
    param_new = param * (1 - eta * decay) - eta * alpha_t * m_new / (numpy.sqrt(v_new) + eps)
    assert _fused.adam(param, m, v, grad, beta1=1 - b1, beta2=1 - b2, alpha_t=alpha_t,
                       eps=eps, eta=eta, weight_decay_rate=decay)
    numpy.testing.assert_allclose(m, m_new, rtol=1e-13)
    numpy.testing.assert_allclose(v, v_new, rtol=1e-13)
    numpy.testing.assert_allclose(param, param_new, rtol=1e-13)


def _declined_cases():
    def arrays(dtype=numpy.float32):
        return _arrays(dtype, count=3)

    p, v, g = arrays()
    yield 'float16', arrays(numpy.float16)
    yield 'mixed dtypes', (p, v, g.astype(numpy.float64))
    yield 'other sizes', (p, v, g[:-1])
    yield 'strided', (p[:, ::2], v[:, ::2], g[:, ::2])
    yield 'Fortran order', (numpy.asfortranarray(p), v, g)
    p2, v2, g2 = arrays()
    v2.flags.writeable = False
    yield 'read-only velocity', (p2, v2, g2)
    p3, v3, g3 = arrays()
    yield 'velocity aliases the parameter', (p3, p3, g3)
    buffer = numpy.zeros(p.size + 1, numpy.float32)
    yield 'overlapping views', (buffer[:-1].reshape(p.shape), buffer[1:].reshape(p.shape), g)
    p4, v4, g4 = arrays()
    yield 'a subclass', (p4.view(numpy.ma.MaskedArray), v4, g4)
    yield 'a list', ([1.0, 2.0], [0.0, 0.0], [1.0, 1.0])


@needs_compiled
@pytest.mark.parametrize('case', list(_declined_cases()), ids=lambda case: case[0])
def test_arrays_the_loop_cannot_take_come_back_untouched(case):
    _, (param, velocity, grad) = case
    before = [numpy.array(a, copy=True) for a in (param, velocity, grad)]
    assert not _fused.momentum_sgd(param, velocity, grad, 0.1, 0.9)
    for array, saved in zip((param, velocity, grad), before):
        numpy.testing.assert_array_equal(numpy.asarray(array), saved)


@needs_compiled
@pytest.mark.parametrize('dtype, stride', [(numpy.float16, 1), (numpy.float32, 2)])
def test_sgd_and_adam_decline_too(dtype, stride):
    param, m, v, grad = (a[:, ::stride] for a in _arrays(dtype, count=4))
    before = param.copy()
    assert not _fused.sgd(param, grad, 0.1)
    assert not _fused.adam(param, m, v, grad, beta1=0.9, beta2=0.999, alpha_t=0.001,
                           eps=1e-8, eta=1.0, weight_decay_rate=0.0)
    numpy.testing.assert_array_equal(param, before)


def test_python_engine_turns_the_compiled_steps_off():
    import os
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, '-c', 'from catena.optimizers import _fused; print(_fused._compiled)'],
        env={**os.environ, 'CATENA_ENGINE': 'python'}, capture_output=True, text=True,
        check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == 'None'
