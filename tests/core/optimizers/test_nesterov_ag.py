"""NesterovAG, in Chainer's formulation.

    v = momentum * v - lr * grad
    param += momentum * momentum * v - (1 + momentum) * lr * grad

(the second line with the velocity just updated).
"""

from __future__ import annotations

import numpy
from tests.core.optimizers import _rule_checks as checks

import catena
from catena import optimizers


def reference(param, grads, lr, momentum):
    velocity = numpy.zeros_like(param)
    for grad in grads:
        velocity = momentum * velocity - lr * grad
        param = param + momentum ** 2 * velocity - (1 + momentum) * lr * grad
        yield param, {'v': velocity}


class TestNesterovAG(checks.VelocityChecks):
    optimizer = optimizers.NesterovAG
    rule = optimizers.NesterovAGRule
    reference = staticmethod(reference)


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
