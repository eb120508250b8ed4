"""Private helpers shared by the normalization links."""

from __future__ import annotations

import copy
from typing import Any

import numpy

from catena import initializers


def initializer_of(value: Any, default: float, dtype: Any) -> Any:
    """An initializer for ``value`` (``default`` when None) producing ``dtype``.

    Scalars and arrays become :class:`~catena.initializers.Constant`; an
    initializer object is copied, so the caller's object keeps its dtype.
    """
    if value is None:
        value = default
    if numpy.isscalar(value) or hasattr(value, 'shape'):
        return initializers.Constant(value, dtype)
    if not callable(value):
        raise TypeError('an initializer must be a scalar, an array or a callable; got '
                        f'{type(value).__name__}')
    if hasattr(value, 'dtype'):
        value = copy.copy(value)
        value.dtype = numpy.dtype(dtype)
    return value
