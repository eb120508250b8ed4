"""What interval-like triggers share: units, tolerant epoch arithmetic, the last position."""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from catena.utils import _validate

UNITS = ('epoch', 'iteration')

# Epoch details are sums of fractions such as 1 + 16/40; dividing them by a
# fractional period lands a hair below a whole number (1.4 / 0.2 ==
# 6.999999999999999). Positions closer than this to a boundary count as on it.
_TOLERANCE = 1e-9


def check_unit(unit: Any, who: str = 'IntervalTrigger', name: str = 'unit') -> str:
    """Returns ``unit`` when it is 'epoch' or 'iteration'; raises ValueError otherwise."""
    if unit not in UNITS:
        raise ValueError(f"{who}: {name} must be 'epoch' or 'iteration'; got "
                         f'{_validate.show(unit)}')
    return str(unit)


def check_period(period: Any, unit: str, name: str = 'period',
                 who: str = 'IntervalTrigger') -> None:
    """Raises when ``period`` is not a positive number (a whole one for iterations)."""
    if isinstance(period, bool) or not isinstance(period, numbers.Real):
        raise TypeError(f'{who}: {name} must be a positive number; got {_validate.show(period)}')
    value = float(period)
    if not value > 0:
        raise ValueError(f'{who}: {name} must be positive; got {_validate.show(period)}')
    if unit == 'iteration' and not value.is_integer():
        raise ValueError(f'{who}: {name} must be a whole number of iterations; got '
                         f'{_validate.show(period)}')


def interval_index(position: float, period: float) -> int:
    """The index of the interval of length ``period`` that holds ``position``."""
    if isinstance(position, int) and isinstance(period, int):
        return position // period
    return math.floor(position / period + _TOLERANCE)


def passed(previous: float, point: float, current: float) -> bool:
    """Whether ``point`` lies in ``(previous, current]``, up to rounding."""
    return previous + _TOLERANCE < point <= current + _TOLERANCE


class LastPosition:
    """Where the updater stood when a trigger was last called.

    A negative value means unknown (a snapshot that did not store it); the
    position is then guessed from the updater.
    """

    def __init__(self) -> None:
        self.iteration = 0
        self.epoch_detail = 0.0

    def span(self, updater: Any, unit: str) -> tuple[Any, Any]:
        """Returns ``(previous, current)`` positions of ``updater`` in ``unit``."""
        if unit == 'epoch':
            current = updater.epoch_detail
            previous: Any = self.epoch_detail
            if previous < 0:
                previous = updater.previous_epoch_detail
                if previous is None:  # the updater has not moved yet
                    previous = 0.0
        else:
            current = updater.iteration
            previous = self.iteration
            if previous < 0:
                previous = current - 1
        return previous, current

    def update(self, updater: Any) -> None:
        """Records the updater's current position."""
        self.iteration = updater.iteration
        epoch_detail = getattr(updater, 'epoch_detail', None)
        if epoch_detail is not None:
            self.epoch_detail = epoch_detail

    def serialize(self, serializer: Any, owner: str) -> None:
        """Saves or loads ``previous_iteration`` and ``previous_epoch_detail``.

        A missing key marks that position unknown (with a warning naming
        ``owner``), so the next call guesses it from the updater.
        """
        try:
            loaded = serializer('previous_iteration', self.iteration)
            if loaded is not None:
                self.iteration = int(loaded)
        except KeyError:
            warnings.warn(f'{owner}: the snapshot holds no previous_iteration; it is guessed '
                          'from the updater, which is right only if the trigger is called '
                          'every iteration', stacklevel=3)
            self.iteration = -1
        try:
            loaded = serializer('previous_epoch_detail', self.epoch_detail)
            if loaded is not None:
                self.epoch_detail = float(loaded)
        except KeyError:
            warnings.warn(f'{owner}: the snapshot holds no previous_epoch_detail; it is taken '
                          "from the updater's previous_epoch_detail", stacklevel=3)
            self.epoch_detail = -1.0
