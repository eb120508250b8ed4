"""Validation of the scalar hyperparameters of activations (alpha, slope, beta, ...)."""

from __future__ import annotations

import math
from numbers import Real
from typing import Any


def real(value: Any, name: str, function: str) -> float:
    """Returns ``value`` as a float if it is a finite real number, else raises naming it."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f'{function}: {name} must be a real number; got {value!r}')
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f'{function}: {name} must be finite; got {value!r}')
    return value
