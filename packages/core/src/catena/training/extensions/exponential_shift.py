"""Exponential shift of an optimizer attribute (:class:`ExponentialShift`)."""

from __future__ import annotations

from typing import Any

from catena.training.extensions import _shift


class ExponentialShift(_shift.OptimizerShift):
    """Multiplies an optimizer attribute by ``rate`` at every call.

    After the ``t``-th call the attribute is ``init * rate ** t``, typically
    an exponential decay of the learning rate. Before training starts, the
    attribute is set to ``init``. The default trigger is every iteration.

    Args:
        attr: The name of the optimizer attribute to shift (``'lr'``,
            ``'alpha'``...).
        rate: The factor applied at each call (zero or more).
        init: The start value; None takes the attribute's value when
            training starts.
        target: The value at which the shift stops, or None.
        optimizer: The optimizer to adjust; None for the updater's
            ``'main'`` optimizer.

    .. admonition:: Example

        >>> from catena.training import extensions
        >>> shift = extensions.ExponentialShift('lr', 0.5, init=0.1, target=0.01)
    """

    def __init__(self, attr: str, rate: float, init: float | None = None,
                 target: float | None = None, optimizer: Any = None) -> None:
        super().__init__(attr, optimizer)
        _shift.check_real('ExponentialShift', 'rate', rate)
        if rate < 0:
            raise ValueError(f'ExponentialShift: rate must not be negative, got {rate!r}')
        _shift.check_real('ExponentialShift', 'init', init, optional=True)
        _shift.check_target('ExponentialShift', target)
        self._rate = rate
        self._init = init
        self._target = target

    def _value_at(self, t: int) -> Any:
        value = self._init * self._rate ** t
        return _shift.clamp_to_target(value, self._target, growing=self._rate > 1)
