"""``Lasso``: L1 regularization added to the gradients."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.optimizer_hooks._common import PenaltyHook


class Lasso(PenaltyHook):
    """Optimizer/UpdateRule hook that adds an L1 penalty's (sub)gradient.

    Before the update (timing ``'pre'``), every gradient becomes

    .. math:: g \\leftarrow g + \\text{rate} \\cdot \\operatorname{sign}(w),

    the gradient of :math:`\\text{rate}\\,\\|w\\|_1` added to the loss (0 at
    :math:`w = 0`). While a gradient still carries a loss scale the added
    term is scaled with it, so loss scaling does not change the result.

    Args:
        rate: The coefficient of the penalty (at least 0).

    Attributes:
        rate (float): The coefficient.
        name (str): The default name of the hook (``'Lasso'``).
    """

    name = 'Lasso'

    def penalty_grad(self, array: Any) -> Any:
        """The subgradient of :math:`\\|w\\|_1`: the sign of the parameter (0 at 0)."""
        return backend.get_array_module(array).sign(array)
