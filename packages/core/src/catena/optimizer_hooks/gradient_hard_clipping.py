"""``GradientHardClipping``: clips every gradient element to a range."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.optimizer_hooks._common import ParamHook, real_argument


class GradientHardClipping(ParamHook):
    """Optimizer/UpdateRule hook that clips each gradient element.

    Before the update (timing ``'pre'``), every gradient element becomes
    :math:`\\min(\\max(g, \\text{lower\\_bound}), \\text{upper\\_bound})`.
    While a gradient still carries a loss scale, the bounds are scaled with
    it, so loss scaling does not change the result.

    Args:
        lower_bound: The smallest value a gradient element keeps.
        upper_bound: The largest value a gradient element keeps (not below
            ``lower_bound``).

    Attributes:
        lower_bound (float): The lower bound.
        upper_bound (float): The upper bound.
        name (str): The default name of the hook (``'GradientHardClipping'``).
    """

    name = 'GradientHardClipping'

    def __init__(self, lower_bound: float, upper_bound: float) -> None:
        lower = real_argument('lower_bound', lower_bound)
        upper = real_argument('upper_bound', upper_bound)
        if lower > upper:
            raise ValueError(f'lower_bound must not exceed upper_bound, got lower_bound='
                             f'{lower!r} and upper_bound={upper!r}')
        self.lower_bound = lower
        self.upper_bound = upper

    def adjust(self, rule: Any, array: Any, grad: Any, scale: float) -> None:
        """Clips ``grad`` in place."""
        # Bounds beyond the dtype's range become infinite, silently.
        with numpy.errstate(over='ignore'):
            lower = grad.dtype.type(self.lower_bound * scale)
            upper = grad.dtype.type(self.upper_bound * scale)
        backend.get_array_module(grad).clip(grad, lower, upper, out=grad)
