"""NesterovAG, in Chainer's formulation.

    v = momentum * v - lr * grad
    param += momentum * momentum * v - (1 + momentum) * lr * grad

(the second line with the velocity just updated).
"""

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
        velocity = momentum * velocity - lr * grad
        param = param + momentum ** 2 * velocity - (1 + momentum) * lr * grad
        history.append(param)
    return history


@pytest.mark.parametrize('dtype', checks.DTYPES)
def test_steps_follow_the_formula(dtype):
    checks.check_steps(optimizers.NesterovAG, reference, HYPER, dtype, state_names=('v',))


def test_two_steps_worked_by_hand():
    rule = optimizers.NesterovAGRule(lr=0.1, momentum=0.5)
    param = catena.Variable(numpy.ones(1), grad=numpy.ones(1))
    rule.update(param)
    # v = -0.1; param = 1 + 0.25 * (-0.1) - 1.5 * 0.1
    numpy.testing.assert_allclose(param.array, [0.825], rtol=1e-15)
    param.grad = numpy.ones(1)
    rule.update(param)
    # v = 0.5 * (-0.1) - 0.1 = -0.15; param = 0.825 + 0.25 * (-0.15) - 0.15
    numpy.testing.assert_allclose(rule.state['v'], [-0.15], rtol=1e-15)
    numpy.testing.assert_allclose(param.array, [0.6375], rtol=1e-15)


def test_fits_a_linear_regression():
    checks.check_fits_linear(optimizers.NesterovAG, {'lr': 0.05, 'momentum': 0.9})


@pytest.mark.parametrize('name, value', [('lr', 0.02), ('momentum', 0.5)])
def test_per_parameter_hyperparameters(name, value):
    checks.check_per_param_hyperparam(optimizers.NesterovAG, reference, HYPER, name, value)


def test_signature_defaults_and_proxies():
    checks.check_signature_and_proxies(optimizers.NesterovAG, optimizers.NesterovAGRule,
                                       [('lr', 0.01), ('momentum', 0.9)])


def test_disabled_rule_leaves_the_parameter():
    checks.check_disabled(optimizers.NesterovAG, HYPER)


def test_fp32_update_of_a_float16_parameter():
    checks.check_fp32_update(optimizers.NesterovAG, reference, HYPER)


def test_static_loss_scaling_changes_nothing():
    checks.check_static_loss_scaling(optimizers.NesterovAG, HYPER)


def test_save_and_load_continues_exactly():
    checks.check_save_and_load(optimizers.NesterovAG, HYPER, state_names=('v',))


def test_missing_gradient_leaves_the_parameter():
    rule = optimizers.NesterovAGRule()
    param = catena.Variable(numpy.ones(3, numpy.float32))
    rule.update(param)
    numpy.testing.assert_array_equal(param.array, numpy.ones(3, numpy.float32))
