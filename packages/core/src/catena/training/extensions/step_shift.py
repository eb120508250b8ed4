"""Step-wise shift of an optimizer attribute every ``step`` calls (:class:`StepShift`)."""

from __future__ import annotations

from typing import Any

from catena.training.extensions import _shift


class StepShift(_shift.OptimizerShift):
    """Multiplies an optimizer attribute by ``gamma`` every ``step`` calls.

    After the ``t``-th call the attribute is ``init * gamma ** (t // step)``.
    Before training starts it is set to ``init``. The default trigger is
    every iteration.

    Args:
        attr: The name of the optimizer attribute to adjust.
        gamma: The factor applied every ``step`` calls.
        step: The number of calls between two multiplications.
        init: The start value; None takes the attribute's value when
            training starts.
        target: The value at which the shift stops, or None.
        optimizer: The optimizer to adjust; None for the updater's
            ``'main'`` optimizer.

    .. admonition:: Example

        >>> from catena.training import extensions
        >>> shift = extensions.StepShift('lr', 0.1, step=10000)
    """

    def __init__(self, attr: str, gamma: float, step: int, init: float | None = None,
                 target: float | None = None, optimizer: Any = None) -> None:
        super().__init__(attr, optimizer)
        _shift.check_real('StepShift', 'gamma', gamma)
        _shift.check_positive_int('StepShift', 'step', step)
        _shift.check_real('StepShift', 'init', init, optional=True)
        _shift.check_target('StepShift', target)
        self._gamma = gamma
        self._step = step
        self._init = init
        self._target = target

    def _value_at(self, t: int) -> Any:
        value = self._init * self._gamma ** (t // self._step)
        return _shift.clamp_to_target(value, self._target, growing=self._gamma > 1)
