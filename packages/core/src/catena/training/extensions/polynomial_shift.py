"""Polynomial shift of an optimizer attribute (:class:`PolynomialShift`)."""

from __future__ import annotations

import math
from typing import Any

from catena.training.extensions import _shift


class PolynomialShift(_shift.OptimizerShift):
    """Decays an optimizer attribute polynomially to zero over ``max_count`` calls.

    After the ``t``-th call the attribute is
    ``init * max(1 - t / max_count, 0) ** rate``; before training starts it
    is set to ``init``. The default
    trigger is every iteration, so ``max_count`` is usually the number of
    iterations of the training.

    Args:
        attr: The name of the optimizer attribute to shift.
        rate: The exponent of the polynomial.
        max_count: The number of calls after which the value reaches zero.
        init: The start value; None takes the attribute's value when
            training starts.
        target: The value at which the shift stops, or None.
        optimizer: The optimizer to adjust; None for the updater's
            ``'main'`` optimizer.

    .. admonition:: Example

        >>> from catena.training import extensions
        >>> shift = extensions.PolynomialShift('lr', 0.5, max_count=10000)
    """

    def __init__(self, attr: str, rate: float, max_count: float, init: float | None = None,
                 target: float | None = None, optimizer: Any = None) -> None:
        super().__init__(attr, optimizer)
        _shift.check_real('PolynomialShift', 'rate', rate)
        _shift.check_real('PolynomialShift', 'max_count', max_count)
        if max_count <= 0:
            raise ValueError(f'PolynomialShift: max_count must be positive, got {max_count!r}')
        _shift.check_real('PolynomialShift', 'init', init, optional=True)
        _shift.check_target('PolynomialShift', target)
        self._init = init
        self._rate = rate
        self._max_count = max_count
        self._target = target

    def _value_at(self, t: int) -> Any:
        decay = max(1 - t / self._max_count, 0)
        # 0 ** negative raises in Python; the limit is infinite (then clamped).
        factor = math.inf if decay == 0 and self._rate < 0 else decay ** self._rate
        value = self._init * factor
        return _shift.clamp_to_target(value, self._target, growing=not self._rate > 0)
