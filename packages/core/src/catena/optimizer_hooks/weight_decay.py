"""``WeightDecay``: L2 regularization added to the gradients."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.optimizer_hooks._common import loss_scale_of, real_argument


class WeightDecay:
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
        timing (str): ``'pre'``: it runs before the update.
        call_for_each_param (bool): True: called as ``hook(rule, param)``.
    """

    name = 'WeightDecay'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, rate: float) -> None:
        self.rate = real_argument('rate', rate, minimum=0)

    def __call__(self, rule: Any, param: Any) -> None:
        """Adds ``rate * param`` to the gradient of ``param`` in place.

        Args:
            rule: The parameter's update rule (unused).
            param: The parameter.
        """
        array, grad = param.array, param.grad
        if array is None or grad is None:
            return
        rate = grad.dtype.type(self.rate * loss_scale_of(param))
        with backend.using_device(param.device):
            grad += rate * array
