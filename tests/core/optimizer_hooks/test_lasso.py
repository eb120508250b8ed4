"""Lasso: g += rate * sign(w), through the optimizer or one update rule."""

import numpy
from tests.core.optimizer_hooks import _hook_checks as checks

from catena.optimizer_hooks import Lasso


class TestLasso(checks.PenaltyHookChecks):
    hook_class = Lasso

    def penalty_grad(self, w):
        return numpy.sign(w)


def test_zero_parameters_get_no_penalty(kit, dtype):
    s = kit.step(Lasso(checks.PENALTY_RATE), dtype)
    assert s.before['/b'][0] == 0
    assert s.seen['/b'][0] == s.grads['/b'][0]
