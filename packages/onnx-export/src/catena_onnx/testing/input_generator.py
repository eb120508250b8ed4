"""Deterministic test inputs whose values differ from element to element."""

from __future__ import annotations

from typing import Any

import numpy


def shaped_range(*shape: int, dtype: Any = numpy.float32) -> numpy.ndarray:
    """Returns ``0, 1, 2, ...`` in ``shape``, as ``dtype``."""
    return numpy.arange(int(numpy.prod(shape)), dtype=dtype).reshape(shape)


def increasing(*shape: int, dtype: Any = numpy.float32) -> numpy.ndarray:
    """Returns evenly spaced values from -1 to 1 (inclusive) in ``shape``."""
    size = int(numpy.prod(shape))
    return numpy.linspace(-1.0, 1.0, size).astype(dtype).reshape(shape)


def nonzero_increasing(*shape: int, dtype: Any = numpy.float32, bound: float = 1e-3
                       ) -> numpy.ndarray:
    """Like :func:`increasing`, with values of magnitude at least ``bound``."""
    x = increasing(*shape, dtype=numpy.float64)
    x = numpy.where(numpy.abs(x) < bound, numpy.copysign(bound, x + 1e-300), x)
    return x.astype(dtype)


def positive_increasing(*shape: int, dtype: Any = numpy.float32, bound: float = 1e-3
                        ) -> numpy.ndarray:
    """Returns evenly spaced values from ``bound`` to 1 + ``bound`` in ``shape``."""
    size = int(numpy.prod(shape))
    return (numpy.linspace(0.0, 1.0, size) + bound).astype(dtype).reshape(shape)
