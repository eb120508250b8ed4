"""SMORMS3: Simon Funk's step with an adaptive memory per element."""

from __future__ import annotations

import numpy
from tests.core.optimizers import _rule_checks as checks

import catena
from catena import optimizers


def reference(param, grads, lr, eps):
    # Funk's memory starts at one (so the first step averages with weight 1/2).
    mem, g, g2 = numpy.ones_like(param), numpy.zeros_like(param), numpy.zeros_like(param)
    for grad in grads:
        r = 1 / (mem + 1)
        g = (1 - r) * g + r * grad
        g2 = (1 - r) * g2 + r * grad ** 2
        x = g * g / (g2 + eps)
        param = param - grad * numpy.minimum(lr, x) / (numpy.sqrt(g2) + eps)
        mem = 1 + mem * (1 - x)
        yield param, {'mem': mem, 'g': g, 'g2': g2}


class TestSMORMS3(checks.OptimizerChecks):
    optimizer = optimizers.SMORMS3
    rule = optimizers.SMORMS3Rule
    defaults = (('lr', 0.001), ('eps', 1e-16))
    hyper = {'lr': 0.05, 'eps': 1e-3}
    own_hyper = (('lr', 0.2),)
    fit_hyper = {'lr': 0.05}
    fit_steps = 100
    state_names = ('mem', 'g', 'g2')
    reference = staticmethod(reference)


def test_one_step_worked_by_hand():
    param = catena.Parameter(numpy.array([1.0]))
    param.grad = numpy.array([2.0])
    rule = optimizers.SMORMS3Rule(lr=0.1, eps=0.0)
    rule.update(param)
    # mem starts at 1, so r = 1/2: g = 1, g2 = 2, x = 1/2; the step is
    # 2 * min(0.1, 1/2) / sqrt(2), and mem becomes 1 + 1 * (1 - 1/2).
    numpy.testing.assert_allclose(param.array, [1 - 0.2 / numpy.sqrt(2)])
    assert rule.state['mem'].tolist() == [1.5]
