"""Validation of the scalar hyperparameters of activations (alpha, slope, beta, ...)."""

from __future__ import annotations

import math
from numbers import Real
from typing import Any


def real(value: Any, name: str, function: str) -> float:
    """Returns ``value`` as a float if it is a finite real number, else raises naming it.

    A real number is a Python or NumPy number (not a bool) or a 0-d array of
    an integer or floating point dtype.
    """
    if isinstance(value, bool) or not (isinstance(value, Real) or _real_0d(value)):
        raise TypeError(f'{function}: {name} must be a real number; got {value!r}')
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f'{function}: {name} must be finite; got {value!r}')
    return value


def _real_0d(value: Any) -> bool:
    dtype = getattr(value, 'dtype', None)
    return getattr(value, 'ndim', None) == 0 and dtype is not None and dtype.kind in 'iuf'
