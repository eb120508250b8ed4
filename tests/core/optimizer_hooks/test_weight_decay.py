"""WeightDecay: g += rate * w, through the optimizer or one update rule."""

from tests.core.optimizer_hooks import _hook_checks as checks

from catena.optimizer_hooks import WeightDecay


class TestWeightDecay(checks.PenaltyHookChecks):
    hook_class = WeightDecay

    def penalty_grad(self, w):
        return w
