"""The trigger that fires at a fixed interval of training time."""

from __future__ import annotations

from typing import Any

from catena.utils import _validate


class TimeTrigger:
    """Fires once every ``period`` seconds of training time.

    The time is the trainer's ``elapsed_time``; the trigger fires at the
    first call after each multiple of ``period`` has passed.

    Args:
        period: The interval in seconds.
    """

    def __init__(self, period: float) -> None:
        _validate.real('TimeTrigger', 'period', period, 0, low_open=True)
        self._period = float(period)
        self._next_time = float(period)

    def __call__(self, trainer: Any) -> bool:
        """Returns whether the next multiple of the period has passed."""
        if self._next_time < trainer.elapsed_time:
            self._next_time += self._period
            return True
        return False

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the time of the next firing (``next_time``)."""
        loaded = serializer('next_time', self._next_time)
        if loaded is not None:
            self._next_time = float(loaded)
