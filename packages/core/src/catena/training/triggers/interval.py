"""The trigger that fires at a fixed interval of iterations or epochs."""

from __future__ import annotations

from typing import Any

from catena.training.triggers import _position


class IntervalTrigger:
    """Fires once every ``period`` iterations or epochs.

    The trigger fires when the updater crosses a multiple of ``period``
    between the previous call and this one, so it also works when it is not
    called every iteration and, with fractional epoch periods, when an epoch
    boundary falls inside a mini-batch. The position of the previous call is
    saved by :meth:`serialize`, so a resumed run fires exactly where an
    uninterrupted one would.

    Args:
        period: The length of the interval; a whole number for
            ``'iteration'``, any positive number for ``'epoch'``.
        unit: ``'iteration'`` or ``'epoch'``.
    """

    def __init__(self, period: float, unit: str) -> None:
        self.unit = _position.check_unit(unit, 'IntervalTrigger')
        _position.check_period(period, self.unit, 'period', 'IntervalTrigger')
        self.period = period
        self._last = _position.LastPosition()

    def __call__(self, trainer: Any) -> bool:
        """Returns whether the trainer's updater has just crossed an interval boundary."""
        updater = trainer.updater
        previous, current = self._last.span(updater, self.unit)
        fire = (_position.interval_index(previous, self.period)
                != _position.interval_index(current, self.period))
        self._last.update(updater)
        return fire

    def get_training_length(self) -> tuple[float, str]:
        """Returns ``(period, unit)``, the training length when this is a stop trigger."""
        return self.period, self.unit

    def serialize(self, serializer: Any) -> None:
        """Saves or loads ``previous_iteration`` and ``previous_epoch_detail``."""
        self._last.serialize(serializer, 'IntervalTrigger')

    def __repr__(self) -> str:
        return f'IntervalTrigger({self.period!r}, {self.unit!r})'
