"""``GradientLARS``: layer-wise adaptive rate scaling of the gradients."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.optimizer_hooks._common import ParamHook, add_scaled, real_argument


class GradientLARS(ParamHook):
    """Optimizer/UpdateRule hook for layer-wise adaptive rate scaling (LARS).

    For each parameter :math:`w` with gradient :math:`g`, before the update
    (timing ``'pre'``)

    .. math::

        \\text{local\\_rate} &= \\frac{\\|w\\|}
            {\\epsilon + \\|g\\| + \\beta \\|w\\|}, \\\\
        g &\\leftarrow \\begin{cases}
            \\text{local\\_rate} \\cdot (g + \\beta w) & \\|w\\| > \\text{threshold}, \\\\
            g + \\beta w & \\text{otherwise},
        \\end{cases}

    with :math:`\\beta` the weight decay and the norms the L2 norms of the
    whole arrays (You et al., `Large Batch Training of Convolutional
    Networks <https://arxiv.org/abs/1708.03888>`_). The LARS coefficient of
    the paper is folded into the optimizer's learning rate. The threshold
    keeps parameters near zero from being scaled (`Convergence Analysis of
    Gradient Descent Algorithms with Proportional Updates
    <https://arxiv.org/abs/1801.03137>`_). While a gradient still carries a
    loss scale, :math:`\\|g\\|` and :math:`\\beta w` are taken with the
    scale, so loss scaling does not change the result. Norms of float16
    arrays are computed in float32.

    Args:
        threshold: The parameter norm above which the gradient is scaled
            (at least 0).
        weight_decay: The weight decay coefficient :math:`\\beta` (at least 0).
        eps: The small constant :math:`\\epsilon` for numerical stability
            (at least 0).

    Attributes:
        threshold (float): The norm threshold.
        weight_decay (float): The weight decay coefficient.
        eps (float): The stability constant.
        name (str): The default name of the hook (``'GradientLARS'``).
    """

    name = 'GradientLARS'

    def __init__(self, threshold: float = 1e-2, weight_decay: float = 0.0,
                 eps: float = 1e-9) -> None:
        self.threshold = real_argument('threshold', threshold, minimum=0)
        self.weight_decay = real_argument('weight_decay', weight_decay, minimum=0)
        self.eps = real_argument('eps', eps, minimum=0)

    def adjust(self, rule: Any, array: Any, grad: Any, scale: float) -> None:
        """Rescales ``grad`` in place."""
        weight_decay = self.weight_decay
        xp = backend.get_array_module(array)
        norm_dtype = numpy.float32 if grad.dtype == numpy.float16 else grad.dtype
        param_norm = xp.linalg.norm(array.astype(norm_dtype, copy=False))
        grad_norm = xp.linalg.norm(grad.astype(norm_dtype, copy=False)) / scale
        local_rate = param_norm / (self.eps + grad_norm + weight_decay * param_norm)
        rate = xp.where(param_norm > self.threshold, local_rate, 1).astype(norm_dtype)
        if weight_decay:
            add_scaled(grad, weight_decay * scale, array)
        # In the norm dtype, so that a large rate times a zero float16
        # gradient stays 0 rather than becoming inf * 0.
        xp.multiply(grad, rate, out=grad, dtype=norm_dtype)
