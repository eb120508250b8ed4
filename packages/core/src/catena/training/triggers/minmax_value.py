"""Triggers that fire when a reported value reaches a new best."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena import reporter
from catena.training import trigger as trigger_module
from catena.utils import _validate


class BestValueTrigger:
    """Fires when the mean of an observed value over an interval is a new best.

    At every call the value of ``key`` in ``trainer.observation`` (when
    present) is added to a summary. When ``trigger`` fires, the mean over the
    interval is compared with the best mean so far; the trigger fires if it
    is better (always at the first check), and the summary starts afresh.

    Args:
        key: The observation key to watch, such as ``'validation/main/loss'``.
        compare: ``compare(best_value, new_value)``, true when ``new_value``
            is better.
        trigger: When to check: anything :func:`~catena.training.get_trigger`
            accepts.
    """

    def __init__(self, key: str, compare: Callable[[float, float], bool],
                 trigger: Any = (1, 'epoch')) -> None:
        who = type(self).__name__
        if not isinstance(key, str):
            raise TypeError(f'{who}: key must be an observation key (a str); got '
                            f'{_validate.show(key)}')
        _validate.function(who, 'compare', compare)
        self._key = key
        self._compare = compare
        self._best_value: float | None = None
        self._interval_trigger = trigger_module.resolve(trigger, type(self).__name__, 'trigger')
        self._summary = reporter.DictSummary()

    def __call__(self, trainer: Any) -> bool:
        """Returns whether the interval just ended with a new best mean."""
        observation = trainer.observation
        key = self._key
        if key in observation:
            self._summary.add({key: observation[key]})
        if not self._interval_trigger(trainer):
            return False
        means = self._summary.compute_mean()
        if key not in means:
            return False
        value = float(means[key])
        self._summary = reporter.DictSummary()
        if self._best_value is None or self._compare(self._best_value, value):
            self._best_value = value
            return True
        return False

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the check trigger, the running summary and the best value."""
        serialize_trigger = getattr(self._interval_trigger, 'serialize', None)
        if serialize_trigger is not None:
            serialize_trigger(serializer['interval_trigger'])
        self._summary.serialize(serializer['summary'])
        best = serializer('best_value', self._best_value)
        self._best_value = None if best is None else float(best)


class MaxValueTrigger(BestValueTrigger):
    """Fires when the mean of an observed value over an interval is a new maximum.

    Args:
        key: The observation key to watch.
        trigger: When to check (see :class:`BestValueTrigger`).
    """

    def __init__(self, key: str, trigger: Any = (1, 'epoch')) -> None:
        super().__init__(key, _greater, trigger)


class MinValueTrigger(BestValueTrigger):
    """Fires when the mean of an observed value over an interval is a new minimum.

    Args:
        key: The observation key to watch.
        trigger: When to check (see :class:`BestValueTrigger`).
    """

    def __init__(self, key: str, trigger: Any = (1, 'epoch')) -> None:
        super().__init__(key, _less, trigger)


def _greater(best_value: float, new_value: float) -> bool:
    return new_value > best_value


def _less(best_value: float, new_value: float) -> bool:
    return new_value < best_value
