"""CorrectedMomentumSGD: v = momentum * v - grad; param += lr * v."""

from __future__ import annotations

import numpy
from tests.core.optimizers import _rule_checks as checks

import catena
from catena import optimizers


def reference(param, grads, lr, momentum):
    velocity = numpy.zeros_like(param)
    for grad in grads:
        velocity = momentum * velocity - grad
        param = param + lr * velocity
        yield param, {'v': velocity}


class TestCorrectedMomentumSGD(checks.VelocityChecks):
    optimizer = optimizers.CorrectedMomentumSGD
    rule = optimizers.CorrectedMomentumSGDRule
    reference = staticmethod(reference)


def test_velocity_is_in_gradient_units():
    # A learning-rate change acts at once: the velocity does not carry the old rate.
    rule = optimizers.CorrectedMomentumSGDRule(lr=1.0, momentum=0.5)
    param = catena.Variable(numpy.zeros(2), grad=numpy.ones(2))
    rule.update(param)
    rule.hyperparam.lr = 0.25
    rule.update(param)
    numpy.testing.assert_array_equal(rule.state['v'], numpy.full(2, -1.5))
    numpy.testing.assert_array_equal(param.array, numpy.full(2, -1.0 - 0.375))
