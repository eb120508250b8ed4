"""Private helpers shared by the normalization links."""

from __future__ import annotations

import copy
from typing import Any

import numpy

from catena import initializers
from catena.utils import _validate


def check_decay_eps(who: str, decay: Any, eps: Any) -> None:
    """Checks a normalization link's ``decay`` (in ``[0, 1]``) and ``eps`` (at least 0).

    Raises:
        TypeError: If one is not a real number.
        ValueError: If one is out of range.
    """
    _validate.real(who, 'decay', decay, 0, 1)
    _validate.real(who, 'eps', eps, 0)


def check_initializer(who: str, name: str, value: Any) -> None:
    """Checks that ``value`` can initialize a parameter: a scalar, an array or a callable.

    Raises:
        TypeError: For anything else (a string, a dict, ...).
    """
    if isinstance(value, (str, bytes)) or not (
            numpy.isscalar(value) or hasattr(value, 'shape') or callable(value)):
        raise TypeError(f'{who}: {name} must be None, a scalar, an array or an initializer; '
                        f'got {_validate.show(value)}')


def initializer_of(value: Any, default: float, dtype: Any, who: str = 'the link',
                   name: str = 'the initializer') -> Any:
    """An initializer for ``value`` (``default`` when None) producing ``dtype``.

    Scalars and arrays become :class:`~catena.initializers.Constant`; an
    initializer object is copied, so the caller's object keeps its dtype.
    """
    if value is None:
        value = default
    if numpy.isscalar(value) or hasattr(value, 'shape'):
        return initializers.Constant(value, dtype)
    check_initializer(who, name, value)
    if hasattr(value, 'dtype'):
        value = copy.copy(value)
        value.dtype = numpy.dtype(dtype)
    return value
