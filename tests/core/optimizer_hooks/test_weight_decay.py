"""WeightDecay: g += rate * w, through the optimizer or one update rule."""

import numpy
from tests.core.optimizer_hooks import _hook_checks as checks

import catena
from catena.optimizer_hooks import WeightDecay


class TestWeightDecay(checks.PenaltyHookChecks):
    hook_class = WeightDecay

    def penalty_grad(self, w):
        return w


def test_one_call_worked_by_hand():
    param = catena.Parameter(numpy.array([1.0, -2.0]))
    param.grad = numpy.array([0.5, 0.5])
    WeightDecay(0.1)(None, param)
    assert numpy.allclose(param.grad, [0.6, 0.3])
