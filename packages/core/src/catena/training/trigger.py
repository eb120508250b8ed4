"""``get_trigger``: turns the ways of naming a trigger into a trigger."""

from __future__ import annotations

from typing import Any

from catena.training.triggers import interval


def _never_fire_trigger(trainer: Any) -> bool:
    return False


def get_trigger(trigger: Any) -> Any:
    """Returns a trigger from a trigger, a ``(period, unit)`` pair or None.

    Args:
        trigger: A callable ``trigger(trainer) -> bool`` (returned as it is),
            a ``(period, unit)`` tuple or list with unit ``'epoch'`` or
            ``'iteration'`` (made an
            :class:`~catena.training.triggers.IntervalTrigger`), or None (a
            trigger that never fires).

    Returns:
        A callable that takes the trainer and returns a bool.

    Raises:
        ValueError: ``trigger`` is none of these.
    """
    if callable(trigger):
        return trigger
    if trigger is None:
        return _never_fire_trigger
    if not isinstance(trigger, (tuple, list)) or len(trigger) != 2:
        raise ValueError('trigger must be a callable, None or a (period, unit) pair such as '
                         f"(1, 'epoch'), got {trigger!r}")
    period, unit = trigger
    try:
        return interval.IntervalTrigger(period, unit)
    except (TypeError, ValueError) as error:
        raise ValueError(f'trigger {trigger!r} is not a valid (period, unit) pair: '
                         f'{error}') from None
