"""RMSprop: steps scaled by a running root mean square of the gradient."""

from __future__ import annotations

import numpy
import pytest
from tests.core.optimizers import _rule_checks as checks

from catena import optimizers

CHAINER_DEFAULTS = (('lr', 0.01), ('alpha', 0.99), ('eps', 1e-08), ('eps_inside_sqrt', False))


def reference(param, grads, lr, alpha, eps, eps_inside_sqrt):
    ms = numpy.zeros_like(param)
    for grad in grads:
        ms = alpha * ms + (1 - alpha) * grad ** 2
        denom = numpy.sqrt(ms + eps) if eps_inside_sqrt else numpy.sqrt(ms) + eps
        param = param - lr * grad / denom
        yield param, {'ms': ms}


class TestRMSprop(checks.OptimizerChecks):
    optimizer = optimizers.RMSprop
    rule = optimizers.RMSpropRule
    defaults = CHAINER_DEFAULTS
    # eps must not underflow in float16.
    hyper = {'lr': 0.05, 'alpha': 0.9, 'eps': 1e-3, 'eps_inside_sqrt': False}
    own_hyper = (('alpha', 0.5),)
    fit_hyper = {'lr': 0.01}
    state_names = ('ms',)
    reference = staticmethod(reference)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_eps_inside_sqrt_follows_its_formula(dtype):
    # A large eps tells the two forms apart.
    hyper = {**TestRMSprop.hyper, 'eps': 0.1, 'eps_inside_sqrt': True}
    actual = TestRMSprop().check_formula(dtype, hyper)
    link = checks.make_link(dtype)
    outside = checks.expected_history(reference, link, checks.make_grads(dtype),
                                      {**hyper, 'eps_inside_sqrt': False})
    for step, params in enumerate(actual):
        assert not numpy.allclose(params['a'], outside['a'][step][0],
                                  **checks.TOLERANCES[dtype])


def test_an_eps_that_underflows_in_float16_is_refused_without_changes():
    link = checks.make_link(numpy.float16)
    optimizer = optimizers.RMSprop().setup(link)  # the default eps, 1e-8, is 0 in float16
    before = link.a.array.copy()
    checks.set_grads(link, checks.make_grads(numpy.float16)[0])
    with pytest.raises(ValueError, match=r'eps of RMSprop is too small for float16: 1e-08'):
        optimizer.update()
    numpy.testing.assert_array_equal(link.a.array, before)
    assert not link.a.update_rule.state['ms'].any()

    optimizer.use_fp32_update()  # the float32 master copy can hold the same eps
    optimizer.update()
    assert numpy.isfinite(link.a.array).all() and not numpy.array_equal(link.a.array, before)


def test_a_zero_eps_is_allowed_in_float16():
    hyper = {**dict(CHAINER_DEFAULTS), 'eps': 0.0}
    link = checks.make_link(numpy.float16)
    grads = checks.make_grads(numpy.float16, draw=lambda rng, shape: rng.uniform(0.1, 1, shape))
    expected = checks.expected_history(reference, link, grads, hyper)
    checks.run_steps(optimizers.RMSprop(eps=0.0).setup(link), link, grads[:1])
    numpy.testing.assert_allclose(link.a.array, expected['a'][0][0],
                                  **checks.TOLERANCES[numpy.float16])
