"""The extension that reports a ratio of sums over an interval (:class:`MicroAverage`)."""

from __future__ import annotations

from typing import Any

from catena import reporter as reporter_module, serializer as serializer_module
from catena.training import _check, extension, trigger as trigger_module
from catena.variable import Variable


def _unwrap(value: Any) -> Any:
    return value.array if isinstance(value, Variable) else value


def _stored_scalar(serializer: Any, key: str, current: Any) -> Any:
    """Saves ``current`` under ``key``, or loads the stored number (keeping its type)."""
    if not isinstance(serializer, serializer_module.Deserializer):
        serializer(key, current)
        return current
    # Asking with None returns the stored array whatever its dtype, so an int
    # counter loads a float sum (and a dry run answers None: keep the value).
    stored = serializer(key, None)
    if stored is None:
        return current
    return stored.item() if hasattr(stored, 'item') else stored


class MicroAverage(extension.Extension):
    """Reports the ratio of two reported values, each summed over an interval.

    Given numerators :math:`n_i` and denominators :math:`d_i` reported at each
    iteration :math:`i` of an interval, it reports
    :math:`\\sum_i n_i / \\sum_i d_i` under ``result_key`` when ``trigger``
    fires, then starts the sums over. With the number of correct
    predictions and the batch size, that is the accuracy over every example
    of the interval (the micro-average), where averaging the per-batch
    accuracies (the macro-average) would weigh a short last batch like a full
    one.

    The extension itself should run every iteration (its default trigger);
    iterations whose observation lacks either key are skipped.

    Args:
        numerator_key: The observation key of the numerator
            (``'main/correct'``).
        denominator_key: The observation key of the denominator
            (``'main/total'``).
        result_key: The key the ratio is reported under.
        trigger: When to report and reset: a trigger or ``(period, unit)``.
            It is distinct from the extension's own trigger.
    """

    priority = extension.PRIORITY_EDITOR

    def __init__(self, numerator_key: str, denominator_key: str, result_key: str,
                 trigger: Any = (1, 'epoch')) -> None:
        for name, key in (('numerator_key', numerator_key),
                          ('denominator_key', denominator_key), ('result_key', result_key)):
            _check.key('MicroAverage', name, key)
        self._trigger = trigger_module.resolve(trigger, 'MicroAverage', 'trigger')
        self._numerator_key = numerator_key
        self._denominator_key = denominator_key
        self._result_key = result_key
        self._numerator: Any = 0
        self._denominator: Any = 0

    def __call__(self, trainer: Any) -> None:
        """Adds this iteration's values and reports the ratio when the trigger fires."""
        observation = trainer.observation
        if self._numerator_key not in observation or self._denominator_key not in observation:
            return
        self._numerator += _unwrap(observation[self._numerator_key])
        self._denominator += _unwrap(observation[self._denominator_key])
        if self._trigger(trainer):
            denominator = float(self._denominator)
            result = float(self._numerator) / denominator if denominator else float('nan')
            self._numerator = 0
            self._denominator = 0
            reporter_module.report({self._result_key: result})

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the sums (``_numerator``, ``_denominator``) and the trigger."""
        if hasattr(self._trigger, 'serialize'):
            self._trigger.serialize(serializer['trigger'])
        self._numerator = _stored_scalar(serializer, '_numerator', self._numerator)
        self._denominator = _stored_scalar(serializer, '_denominator', self._denominator)


__all__ = ['MicroAverage']
