"""Inverse-power shift of an optimizer attribute (:class:`InverseShift`)."""

from __future__ import annotations

from typing import Any

from catena.training.extensions import _shift


class InverseShift(_shift.OptimizerShift):
    """Shifts an optimizer attribute as ``init * (1 + gamma * t) ** -power``.

    ``t`` is the number of calls so far; this is Caffe's ``inv`` learning
    rate policy. Before training starts, the attribute is set to ``init``.
    The default trigger is every iteration.

    Args:
        attr: The name of the optimizer attribute to shift.
        gamma: The coefficient of ``t`` (zero or more).
        power: The exponent; a positive power decays the value.
        init: The start value; None takes the attribute's value when
            training starts.
        target: The value at which the shift stops, or None.
        optimizer: The optimizer to adjust; None for the updater's
            ``'main'`` optimizer.

    .. admonition:: Example

        >>> from catena.training import extensions
        >>> shift = extensions.InverseShift('lr', gamma=1e-4, power=0.75)
    """

    def __init__(self, attr: str, gamma: float, power: float, init: float | None = None,
                 target: float | None = None, optimizer: Any = None) -> None:
        super().__init__(attr, optimizer)
        _shift.check_real('InverseShift', 'gamma', gamma)
        if gamma < 0:
            raise ValueError(f'InverseShift: gamma must not be negative, got {gamma!r}')
        _shift.check_real('InverseShift', 'power', power)
        _shift.check_real('InverseShift', 'init', init, optional=True)
        _shift.check_target('InverseShift', target)
        self._gamma = gamma
        self._power = power
        self._init = init
        self._target = target

    def _value_at(self, t: int) -> Any:
        value = self._init * (1 + self._gamma * t) ** -self._power
        return _shift.clamp_to_target(value, self._target, growing=self._power < 0)
