"""``GradientClipping``: rescales all gradients to a bounded global L2 norm."""

from __future__ import annotations

import math
from typing import Any

from catena import backend
from catena.optimizer import _sum_sqnorm
from catena.optimizer_hooks._common import loss_scale_of, real_argument


class GradientClipping:
    """Optimizer hook that bounds the L2 norm of all gradients together.

    Before the update (timing ``'pre'``), it computes the norm over every
    gradient of the optimizer's target,
    :math:`N = \\sqrt{\\sum_i \\|g_i\\|^2}` (accumulated in float64 for
    float16 gradients), and when :math:`N > \\text{threshold}` multiplies
    every gradient by :math:`\\text{threshold} / N`. While the gradients
    still carry a loss scale :math:`s`, the norm is compared with
    :math:`s \\cdot \\text{threshold}`, so loss scaling does not change the
    result.

    It acts on the whole model at once, so it is an
    :meth:`catena.Optimizer.add_hook` hook only (called as
    ``hook(optimizer)``), not an update-rule hook.

    Args:
        threshold: The largest norm left unchanged (positive).

    Attributes:
        threshold (float): The norm bound.
        name (str): The default name of the hook (``'GradientClipping'``).
        timing (str): ``'pre'``: it runs before the update.
        call_for_each_param (bool): False: called as ``hook(optimizer)``.
    """

    name = 'GradientClipping'
    call_for_each_param = False
    timing = 'pre'

    def __init__(self, threshold: float) -> None:
        self.threshold = real_argument('threshold', threshold, positive=True)

    def __call__(self, optimizer: Any) -> None:
        """Rescales the gradients of ``optimizer.target`` in place if needed.

        Args:
            optimizer: The optimizer, set up on its target link.
        """
        target = getattr(optimizer, 'target', None)
        if target is None:
            raise RuntimeError(f'{self.name} needs an optimizer set up on a link, got '
                               f'{type(optimizer).__name__} without a target (is it an '
                               'update-rule hook? use Optimizer.add_hook)')
        params = [param for param in target.params(False) if param.grad is not None]
        if not params:
            return
        threshold = self.threshold * loss_scale_of(params[0])
        norm = math.sqrt(_sum_sqnorm([param.grad for param in params]))
        if not norm > threshold:  # also leaves non-finite gradients alone
            return
        rate = threshold / norm
        for param in params:
            grad = param.grad
            with backend.using_device(param.device):
                grad *= grad.dtype.type(rate)
