"""RMSpropGraves: momentum on steps normalized by the gradient's running deviation."""

from __future__ import annotations

import numpy
from tests.core.optimizers import _rule_checks as checks

import catena
from catena import optimizers


def reference(param, grads, lr, alpha, momentum, eps):
    n, g, delta = numpy.zeros_like(param), numpy.zeros_like(param), numpy.zeros_like(param)
    for grad in grads:
        n = alpha * n + (1 - alpha) * grad ** 2
        g = alpha * g + (1 - alpha) * grad
        delta = momentum * delta - lr * grad / numpy.sqrt(n - g ** 2 + eps)
        param = param + delta
        yield param, {'n': n, 'g': g, 'delta': delta}


class TestRMSpropGraves(checks.OptimizerChecks):
    optimizer = optimizers.RMSpropGraves
    rule = optimizers.RMSpropGravesRule
    defaults = (('lr', 0.0001), ('alpha', 0.95), ('momentum', 0.9), ('eps', 0.0001))
    hyper = {'lr': 0.01, 'alpha': 0.9, 'momentum': 0.5, 'eps': 1e-2}
    own_hyper = (('momentum', 0.8),)
    fit_hyper = {'lr': 0.01}
    fit_steps = 200
    state_names = ('n', 'g', 'delta')
    reference = staticmethod(reference)


def test_one_step_worked_by_hand():
    param = catena.Parameter(numpy.array([1.0]))
    param.grad = numpy.array([2.0])
    rule = optimizers.RMSpropGravesRule(lr=0.1, alpha=0.5, momentum=0.9, eps=0.0)
    rule.update(param)
    # n = 0.5 * 4 = 2, g = 0.5 * 2 = 1, delta = -0.1 * 2 / sqrt(2 - 1) = -0.2.
    numpy.testing.assert_allclose(param.array, [0.8])
    assert rule.state['n'].tolist() == [2.0]
    assert rule.state['g'].tolist() == [1.0]
