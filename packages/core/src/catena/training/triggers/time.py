"""The trigger that fires at a fixed interval of training time."""

from __future__ import annotations

import numbers
from typing import Any


class TimeTrigger:
    """Fires once every ``period`` seconds of training time.

    The time is the trainer's ``elapsed_time``; the trigger fires at the
    first call after each multiple of ``period`` has passed.

    Args:
        period: The interval in seconds.
    """

    def __init__(self, period: float) -> None:
        if isinstance(period, bool) or not isinstance(period, (int, float, numbers.Real)):
            raise TypeError(f'period must be a positive number of seconds, got '
                            f'{type(period).__name__}')
        if not period > 0:
            raise ValueError(f'period must be a positive number of seconds, got {period!r}')
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
