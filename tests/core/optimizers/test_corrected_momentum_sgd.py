"""CorrectedMomentumSGD: v = momentum * v - grad; param += lr * v."""

from __future__ import annotations

import numpy
import pytest
from tests.core.optimizers import _rule_checks as checks

import catena
from catena import optimizers

HYPER = {'lr': 0.1, 'momentum': 0.8}


def reference(param, grads, lr, momentum):
    history = []
    param, velocity = param.copy(), numpy.zeros_like(param)
    for grad in grads:
        velocity = momentum * velocity - grad
        param = param + lr * velocity
        history.append(param)
    return history


@pytest.mark.parametrize('dtype', checks.DTYPES)
def test_steps_follow_the_formula(dtype):
    checks.check_steps(optimizers.CorrectedMomentumSGD, reference, HYPER, dtype,
                       state_names=('v',))


def test_fits_a_linear_regression():
    checks.check_fits_linear(optimizers.CorrectedMomentumSGD, {'lr': 0.05, 'momentum': 0.9})


@pytest.mark.parametrize('name, value', [('lr', 0.02), ('momentum', 0.5)])
def test_per_parameter_hyperparameters(name, value):
    checks.check_per_param_hyperparam(optimizers.CorrectedMomentumSGD, reference, HYPER,
                                      name, value)


def test_signature_defaults_and_proxies():
    checks.check_signature_and_proxies(optimizers.CorrectedMomentumSGD,
                                       optimizers.CorrectedMomentumSGDRule,
                                       [('lr', 0.01), ('momentum', 0.9)])


def test_disabled_rule_leaves_the_parameter():
    checks.check_disabled(optimizers.CorrectedMomentumSGD, HYPER)


def test_fp32_update_of_a_float16_parameter():
    checks.check_fp32_update(optimizers.CorrectedMomentumSGD, reference, HYPER)


def test_static_loss_scaling_changes_nothing():
    checks.check_static_loss_scaling(optimizers.CorrectedMomentumSGD, HYPER)


def test_save_and_load_continues_exactly():
    checks.check_save_and_load(optimizers.CorrectedMomentumSGD, HYPER, state_names=('v',))


def test_velocity_is_in_gradient_units():
    # A learning-rate change acts at once: the velocity does not carry the old rate.
    rule = optimizers.CorrectedMomentumSGDRule(lr=1.0, momentum=0.5)
    param = catena.Variable(numpy.zeros(2), grad=numpy.ones(2))
    rule.update(param)
    rule.hyperparam.lr = 0.25
    rule.update(param)
    numpy.testing.assert_array_equal(rule.state['v'], numpy.full(2, -1.5))
    numpy.testing.assert_array_equal(param.array, numpy.full(2, -1.0 - 0.375))


def test_missing_gradient_leaves_the_parameter():
    rule = optimizers.CorrectedMomentumSGDRule()
    param = catena.Variable(numpy.ones(3, numpy.float32))
    rule.update(param)
    numpy.testing.assert_array_equal(param.array, numpy.ones(3, numpy.float32))
