"""``get_trigger``: turns the ways of naming a trigger into a trigger."""

from __future__ import annotations

from typing import Any

from catena.training.triggers import interval
from catena.utils import _validate


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
    return resolve(trigger, 'get_trigger', 'trigger')


def resolve(trigger: Any, who: str, name: str) -> Any:
    """Does what :func:`get_trigger` does; an error names ``who`` and the argument ``name``."""
    if callable(trigger):
        return trigger
    if trigger is None:
        return _never_fire_trigger
    if not isinstance(trigger, (tuple, list)) or len(trigger) != 2:
        raise ValueError(f'{who}: {name} must be a callable, None or a (period, unit) pair such '
                         f"as (1, 'epoch'); got {_validate.show(trigger)}")
    period, unit = trigger
    try:
        return interval.IntervalTrigger(period, unit)
    except (TypeError, ValueError) as error:
        reason = str(error).split(': ', 1)[-1]
        raise ValueError(f'{who}: {name} {_validate.show(trigger)} is not a valid (period, unit) '
                         f'pair: {reason}') from None
