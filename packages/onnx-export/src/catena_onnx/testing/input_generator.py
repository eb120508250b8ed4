"""Deterministic test inputs that increase element by element (onnx-chainer's values).

>>> increasing(3, 4)
array([[-3. , -2.5, -2. , -1.5],
       [-1. , -0.5,  0. ,  0.5],
       [ 1. ,  1.5,  2. ,  2.5]], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy


def shaped_range(*shape: int, dtype: Any = numpy.float32) -> numpy.ndarray:
    """Returns ``0, 1, 2, ...`` in ``shape``, as ``dtype``."""
    return numpy.arange(int(numpy.prod(shape)), dtype=dtype).reshape(shape)


def _steps(shape: tuple[int, ...], dtype: Any, centred: bool, bias: float) -> numpy.ndarray:
    values = numpy.arange(int(numpy.prod(shape)), dtype=numpy.float64)
    if centred:
        values -= values.size // 2
    if numpy.dtype(dtype).kind == 'f':
        values *= 0.5
    values += bias
    return values.astype(dtype).reshape(shape)


def increasing(*shape: int, dtype: Any = numpy.float32) -> numpy.ndarray:
    """Returns a monotonically increasing array with negative values, zero and
    (for float dtypes) non-integers: steps of 0.5 (1 for integers) centred so that
    element ``size // 2`` is 0.

    Args:
        shape: The shape.
        dtype: The dtype.
    """
    return _steps(shape, dtype, centred=True, bias=0.0)


def nonzero_increasing(*shape: int, dtype: Any = numpy.float32, bias: float = 1e-7
                       ) -> numpy.ndarray:
    """Like :func:`increasing` plus ``bias``, so that no element is zero (for divisors).

    Args:
        shape: The shape.
        dtype: A float dtype.
        bias: What is added to every element.
    """
    if numpy.dtype(dtype).kind != 'f':
        raise ValueError(f'nonzero_increasing makes float arrays, got dtype {dtype!r}')
    return _steps(shape, dtype, centred=True, bias=bias)


def positive_increasing(*shape: int, dtype: Any = numpy.float32, bias: float = 1e-7
                        ) -> numpy.ndarray:
    """Returns ``bias, bias + 0.5, bias + 1, ...`` (steps of 1 for integers) in
    ``shape``, for functions defined on positive numbers (``log``, ``sqrt``).

    Args:
        shape: The shape.
        dtype: The dtype.
        bias: The first element.
    """
    return _steps(shape, dtype, centred=False, bias=bias)
