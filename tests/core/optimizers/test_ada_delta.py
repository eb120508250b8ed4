"""AdaDelta: steps from running averages of squared gradients and squared steps."""

from __future__ import annotations

import numpy
from tests.core.optimizers import _rule_checks as checks

import catena
from catena import optimizers


def reference(param, grads, rho, eps):
    msg, msdx = numpy.zeros_like(param), numpy.zeros_like(param)
    for grad in grads:
        msg = rho * msg + (1 - rho) * grad ** 2
        dx = numpy.sqrt((msdx + eps) / (msg + eps)) * grad
        msdx = rho * msdx + (1 - rho) * dx ** 2
        param = param - dx
        yield param, {'msg': msg, 'msdx': msdx}


class TestAdaDelta(checks.OptimizerChecks):
    optimizer = optimizers.AdaDelta
    rule = optimizers.AdaDeltaRule
    defaults = (('rho', 0.95), ('eps', 1e-06))
    hyper = {'rho': 0.9, 'eps': 1e-3}
    own_hyper = (('eps', 1e-2),)
    fit_hyper = {'rho': 0.9, 'eps': 1e-4}
    fit_steps = 200
    state_names = ('msg', 'msdx')
    reference = staticmethod(reference)


def test_one_step_worked_by_hand():
    param = catena.Parameter(numpy.array([1.0]))
    param.grad = numpy.array([2.0])
    rule = optimizers.AdaDeltaRule(rho=0.5, eps=1.0)
    rule.update(param)
    # msg = 0.5 * 4 = 2; dx = sqrt((0 + 1) / (2 + 1)) * 2; msdx = 0.5 * dx ** 2 = 2 / 3.
    numpy.testing.assert_allclose(param.array, [1 - 2 / numpy.sqrt(3)])
    assert rule.state['msg'].tolist() == [2.0]
    assert abs(rule.state['msdx'][0] - 2 / 3) < 1e-12
