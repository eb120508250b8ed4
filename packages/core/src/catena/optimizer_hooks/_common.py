"""Argument checks and loss-scale handling shared by the optimizer hooks."""

from __future__ import annotations

import numbers
from typing import Any


def real_argument(name: str, value: Any, *, minimum: float | None = None,
                  positive: bool = False) -> float:
    """Checks that a hook's constructor argument is a real number in range.

    Args:
        name: The argument's name, for the error message.
        value: The value given.
        minimum: The smallest allowed value (inclusive), or None.
        positive: Whether the value must be strictly greater than 0.

    Returns:
        The value as a Python float.

    Raises:
        TypeError: ``value`` is not a real number.
        ValueError: ``value`` is out of range (or NaN).
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f'{name} must be a real number, got {type(value).__name__}')
    value = float(value)
    if positive and not value > 0:
        raise ValueError(f'{name} must be positive, got {value!r}')
    if minimum is not None and not value >= minimum:
        raise ValueError(f'{name} must be at least {minimum}, got {value!r}')
    if value != value:
        raise ValueError(f'{name} must not be NaN')
    return value


def loss_scale_of(param: Any) -> float:
    """The factor the gradient of ``param`` is still multiplied by (1 without loss scaling).

    Before the update rule divides it out, a gradient computed with a loss
    scale carries that scale (``param._loss_scale``).
    """
    scale = param._loss_scale
    return 1.0 if scale is None else float(scale)
