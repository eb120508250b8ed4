"""``Lasso``: L1 regularization added to the gradients."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.optimizer_hooks._common import loss_scale_of, real_argument


class Lasso:
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
        timing (str): ``'pre'``: it runs before the update.
        call_for_each_param (bool): True: called as ``hook(rule, param)``.
    """

    name = 'Lasso'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, rate: float) -> None:
        self.rate = real_argument('rate', rate, minimum=0)

    def __call__(self, rule: Any, param: Any) -> None:
        """Adds ``rate * sign(param)`` to the gradient of ``param`` in place.

        Args:
            rule: The parameter's update rule (unused).
            param: The parameter.
        """
        array, grad = param.array, param.grad
        if array is None or grad is None:
            return
        rate = grad.dtype.type(self.rate * loss_scale_of(param))
        with backend.using_device(param.device):
            xp = backend.get_array_module(array)
            grad += rate * xp.sign(array)
