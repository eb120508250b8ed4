"""The common part of the extensions that shift an optimizer attribute (``*Shift``).

Every shift extension counts its calls in ``_t``, computes a value from that
count, sets it on the optimizer with ``setattr`` and remembers it in
``_last_value``. Both are saved under Chainer's keys (``_t``,
``_last_value``), so a resumed run restores the last value before its first
update and then continues the schedule where it stopped.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from catena.training import extension


def check_real(owner: str, name: str, value: Any, *, optional: bool = False) -> None:
    """Raises TypeError unless ``value`` is a real number (or None when ``optional``).

    Args:
        owner: The class whose argument is checked, for the message.
        name: The argument's name.
        value: The argument.
        optional: Whether None is allowed.
    """
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        expected = 'a real number or None' if optional else 'a real number'
        raise TypeError(f'{owner}: {name} must be {expected}, '
                        f'got {type(value).__name__} ({value!r})')


def check_positive_int(owner: str, name: str, value: Any) -> None:
    """Raises TypeError/ValueError unless ``value`` is an integer above zero."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f'{owner}: {name} must be an int, '
                        f'got {type(value).__name__} ({value!r})')
    if value <= 0:
        raise ValueError(f'{owner}: {name} must be positive, got {value!r}')


def check_target(owner: str, target: Any) -> None:
    """Checks the optional ``target``: a nonzero real number, or None."""
    check_real(owner, 'target', target, optional=True)
    if target == 0:
        raise ValueError(f'{owner}: target must be nonzero or None (the shift stops when '
                         'value / target crosses 1), got 0')


def clamp_to_target(value: float, target: float | None, growing: bool) -> float:
    """Stops a shift at ``target``.

    As in Chainer, the comparison is on the ratio ``value / target``, so it
    works for negative values too: a growing shift stops once the ratio
    exceeds 1, a shrinking one once it falls below 1.

    Args:
        value: The value the schedule gives.
        target: The value at which the shift stops, or None for no limit.
        growing: Whether the schedule moves the value away from zero.

    Returns:
        ``target`` if the value went past it, else ``value``.
    """
    if target is None:
        return value
    ratio = value / target
    if (ratio > 1) if growing else (ratio < 1):
        return target
    return value


class OptimizerShift(extension.Extension):
    """The base of the shift extensions (every iteration by default).

    Subclasses implement :meth:`_value_at` (the value after the ``t``-th
    call, or None to leave the attribute alone) and may override
    :meth:`_start_value` (the value set before training starts; by default
    ``_init``, which is taken from the optimizer when it is None).

    Args:
        attr: The name of the optimizer attribute to shift (``'lr'``...).
        optimizer: The optimizer to adjust; None for the updater's
            ``'main'`` optimizer.
    """

    def __init__(self, attr: str, optimizer: Any = None) -> None:
        if not isinstance(attr, str) or not attr:
            raise TypeError(f'{type(self).__name__}: attr must be the name of an optimizer '
                            f'attribute (a non-empty str), got {attr!r}')
        if isinstance(optimizer, (str, bytes, numbers.Number)):
            raise TypeError(f'{type(self).__name__}: optimizer must be an optimizer or None (the '
                            f"updater's main one); got {optimizer!r}")
        self._attr = attr
        self._optimizer = optimizer
        self._init: Any = None
        self._t = 0
        self._last_value: Any = None

    def initialize(self, trainer: Any) -> None:
        """Sets the start value, or the last value saved in a snapshot when resuming."""
        optimizer = self._get_optimizer(trainer)
        start = self._start_value(self._read_attr(optimizer))
        self._update_value(optimizer, start if self._last_value is None else self._last_value)

    def __call__(self, trainer: Any) -> None:
        """Advances the schedule by one call and sets the attribute."""
        self._t += 1
        value = self._value_at(self._t)
        if value is not None:
            self._update_value(self._get_optimizer(trainer), value)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the call count ``_t`` and ``_last_value`` (Chainer's keys)."""
        self._t = serializer('_t', self._t)
        last = serializer('_last_value', self._last_value)
        self._last_value = last.item() if isinstance(last, numpy.ndarray) else last

    def _start_value(self, current: Any) -> Any:
        """Returns the value to set before training, given the attribute's current value."""
        if self._init is None:
            self._init = current
        return self._init

    def _value_at(self, t: int) -> Any:
        """Returns the value after the ``t``-th call, or None to keep the current one."""
        raise NotImplementedError

    def _get_optimizer(self, trainer: Any) -> Any:
        if self._optimizer is not None:
            return self._optimizer
        return trainer.updater.get_optimizer('main')

    def _read_attr(self, optimizer: Any) -> Any:
        try:
            return getattr(optimizer, self._attr)
        except AttributeError:
            raise AttributeError(
                f'{type(self).__name__}: the optimizer {type(optimizer).__name__} has no '
                f'attribute {self._attr!r} (the attr argument)') from None

    def _update_value(self, optimizer: Any, value: Any) -> None:
        setattr(optimizer, self._attr, value)
        self._last_value = value
