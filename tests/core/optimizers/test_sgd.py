"""SGD: param -= lr * grad."""

from __future__ import annotations

import numpy
from tests.core.optimizers import _rule_checks as checks

import catena
from catena import optimizers


def reference(param, grads, lr):
    for grad in grads:
        param = param - lr * grad
        yield param, {}


class TestSGD(checks.OptimizerChecks):
    optimizer = optimizers.SGD
    rule = optimizers.SGDRule
    defaults = (('lr', 0.01),)
    hyper = {'lr': 0.1}
    own_hyper = (('lr', 0.02),)
    fit_hyper = {'lr': 0.1}
    state_names = ()
    reference = staticmethod(reference)


def test_update_reuses_one_work_buffer():
    rule = optimizers.SGDRule(lr=0.5)
    param = catena.Variable(numpy.ones(3, numpy.float32),
                            grad=numpy.ones(3, numpy.float32))
    rule.update(param)
    buffer = rule._step._array
    rule.update(param)
    assert rule._step._array is buffer
    numpy.testing.assert_array_equal(param.array, numpy.zeros(3, numpy.float32))
