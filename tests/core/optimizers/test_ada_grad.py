"""AdaGrad: h += g ** 2; param -= lr * g / (sqrt(h) + eps)."""

from __future__ import annotations

import numpy
from tests.core.optimizers import _rule_checks as checks

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
