"""AdaGrad: h += g ** 2; param -= lr * g / (sqrt(h) + eps)."""

from __future__ import annotations

import numpy
from tests.core.optimizers import _rule_checks as checks

import catena
from catena import optimizers


def reference(param, grads, lr, eps):
    h = numpy.zeros_like(param)
    for grad in grads:
        h = h + grad ** 2
        param = param - lr * grad / (numpy.sqrt(h) + eps)
        yield param, {'h': h}


class TestAdaGrad(checks.OptimizerChecks):
    optimizer = optimizers.AdaGrad
    rule = optimizers.AdaGradRule
    defaults = (('lr', 0.001), ('eps', 1e-08))
    hyper = {'lr': 0.05, 'eps': 1e-3}
    own_hyper = (('lr', 0.2),)
    fit_hyper = {'lr': 0.5}
    fit_steps = 100
    state_names = ('h',)
    reference = staticmethod(reference)


def test_one_step_worked_by_hand():
    param = catena.Parameter(numpy.array([1.0, -2.0]))
    param.grad = numpy.array([0.5, 0.5])
    rule = optimizers.AdaGradRule(lr=0.1, eps=0.0)
    rule.update(param)
    # h = 0.25, so each element moves by lr * 0.5 / 0.5 = 0.1.
    numpy.testing.assert_allclose(param.array, [0.9, -2.1])
    assert rule.state['h'].tolist() == [0.25, 0.25]
