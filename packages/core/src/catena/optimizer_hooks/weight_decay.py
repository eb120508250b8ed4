"""``WeightDecay``: L2 regularization added to the gradients."""

from __future__ import annotations

from typing import Any

from catena.optimizer_hooks._common import PenaltyHook


class WeightDecay(PenaltyHook):
    """Optimizer/UpdateRule hook that adds an L2 penalty's gradient.

    Before the update (timing ``'pre'``), every gradient becomes

    .. math:: g \\leftarrow g + \\text{rate} \\cdot w,

    the gradient of :math:`\\frac{\\text{rate}}{2}\\|w\\|^2` added to the
    loss. While a gradient still carries a loss scale the added term is
    scaled with it, so loss scaling does not change the result.

    Register it with :meth:`catena.Optimizer.add_hook` (called for every
    parameter) or :meth:`catena.UpdateRule.add_hook` (one parameter).

    Args:
        rate: The coefficient of the penalty (at least 0).

    Attributes:
        rate (float): The coefficient.
        name (str): The default name of the hook (``'WeightDecay'``).
    """

    name = 'WeightDecay'

    def penalty_grad(self, array: Any) -> Any:
        """The gradient of :math:`\\frac{1}{2}\\|w\\|^2`: the parameter itself."""
        return array
