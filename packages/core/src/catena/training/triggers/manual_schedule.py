"""The trigger that fires at given iterations or epochs."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterable
from typing import Any

from catena.training.triggers import _position
from catena.utils import _validate


class ManualScheduleTrigger:
    """Fires when the updater reaches one of the given points.

    A point is reached when it lies after the position of the previous call
    and at or before the current one.

    Args:
        points: One point or a sequence of points (iterations, or epochs
            that may be fractional).
        unit: ``'iteration'`` or ``'epoch'``.

    Attributes:
        finished: True once the last point has been reached.
    """

    def __init__(self, points: Any, unit: str) -> None:
        self.unit = _position.check_unit(unit, 'ManualScheduleTrigger')
        words = 'a number or a non-empty sequence of numbers'
        if isinstance(points, numbers.Real) and not isinstance(points, bool):
            self.points: list[Any] = [points]
        elif isinstance(points, Iterable) and not isinstance(points, (str, bytes)):
            self.points = list(points)
        else:
            raise TypeError(f'ManualScheduleTrigger: points must be {words}; '
                            f'got {_validate.show(points)}')
        if not self.points:
            raise ValueError(f'ManualScheduleTrigger: points must be {words}; got {points!r}')
        for point in self.points:
            if isinstance(point, bool) or not isinstance(point, numbers.Real):
                raise TypeError(f'ManualScheduleTrigger: points must be {words}; got '
                                f'{_validate.show(points)}, which holds {_validate.show(point)}')
        self.finished = False
        self._last = _position.LastPosition()
        self._guess_finished = False

    def __call__(self, trainer: Any) -> bool:
        """Returns whether a point was reached since the previous call."""
        updater = trainer.updater
        previous, current = self._last.span(updater, self.unit)
        fire = any(_position.passed(previous, point, current) for point in self.points)
        reached_last = current >= max(self.points)
        if self._guess_finished:
            self._guess_finished = False
            if reached_last:
                self.finished = True
        if fire and reached_last:
            self.finished = True
        self._last.update(updater)
        return fire

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the previous position and ``finished``."""
        self._last.serialize(serializer, 'ManualScheduleTrigger')
        try:
            loaded = serializer('finished', self.finished)
        except KeyError:
            warnings.warn('ManualScheduleTrigger: the snapshot holds no finished flag; it is '
                          'guessed at the next call', stacklevel=2)
            self._guess_finished = True
            return
        if loaded is not None:
            self.finished = bool(loaded)
