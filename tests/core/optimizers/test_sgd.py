"""SGD: param -= lr * grad."""

from __future__ import annotations

import numpy
import pytest
from tests.core.optimizers import _rule_checks as checks

import catena
from catena import optimizers

HYPER = {'lr': 0.1}


def reference(param, grads, lr):
    history = []
    param = param.copy()
    for grad in grads:
        param = param - lr * grad
        history.append(param)
    return history


@pytest.mark.parametrize('dtype', checks.DTYPES)
def test_steps_follow_the_formula(dtype):
    checks.check_steps(optimizers.SGD, reference, HYPER, dtype, state_names=())


def test_fits_a_linear_regression():
    checks.check_fits_linear(optimizers.SGD, {'lr': 0.1})


def test_per_parameter_learning_rate():
    checks.check_per_param_hyperparam(optimizers.SGD, reference, HYPER, 'lr', 0.02)


def test_signature_defaults_and_proxies():
    checks.check_signature_and_proxies(optimizers.SGD, optimizers.SGDRule, [('lr', 0.01)])


def test_disabled_rule_leaves_the_parameter():
    checks.check_disabled(optimizers.SGD, HYPER)


def test_fp32_update_of_a_float16_parameter():
    checks.check_fp32_update(optimizers.SGD, reference, HYPER)


def test_static_loss_scaling_changes_nothing():
    checks.check_static_loss_scaling(optimizers.SGD, HYPER)


def test_save_and_load_continues_exactly():
    checks.check_save_and_load(optimizers.SGD, HYPER, state_names=())


def test_missing_gradient_leaves_the_parameter():
    rule = optimizers.SGDRule(lr=0.5)
    param = catena.Variable(numpy.ones(3, numpy.float32))
    rule.update(param)
    numpy.testing.assert_array_equal(param.array, numpy.ones(3, numpy.float32))


def test_update_reuses_one_work_buffer():
    rule = optimizers.SGDRule(lr=0.5)
    param = catena.Variable(numpy.ones(3, numpy.float32),
                            grad=numpy.ones(3, numpy.float32))
    rule.update(param)
    buffer = rule._step._array
    rule.update(param)
    assert rule._step._array is buffer
    numpy.testing.assert_array_equal(param.array, numpy.zeros(3, numpy.float32))
