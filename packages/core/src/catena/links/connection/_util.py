"""Helpers shared by the connection links: initializer resolution and size arguments."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy

from catena import initializers


def get_initializer(initializer: Any, default: str = 'LeCunNormal') -> Any:
    """Turns a link's ``initialW``-style argument into an initializer.

    None gives ``initializers.<default>()``; a scalar or an array gives a
    :class:`~catena.initializers.Constant` (so that the parameter stays
    uninitialized until its shape is known); callables pass through.
    """
    if initializer is None:
        return getattr(initializers, default)()
    if isinstance(initializer, (numbers.Number, numpy.generic)) and \
            not isinstance(initializer, bool) or hasattr(initializer, 'shape'):
        return initializers.Constant(initializer)
    if not callable(initializer):
        raise TypeError('an initializer must be None, a scalar, an array or a callable; '
                        f'got {type(initializer).__name__}')
    return initializer


def get_bias_initializer(initial_bias: Any) -> Any:
    """Turns ``initial_bias`` into an initializer; None means zero."""
    if initial_bias is None:
        return initializers.Constant(0)
    return get_initializer(initial_bias)


def as_tuple(value: Any, nd: int, name: str, minimum: int = 1) -> tuple[int, ...]:
    """Returns ``value`` (an int or ``nd`` ints) as an ``nd``-tuple of ints.

    Raises:
        TypeError: If it is not an int or a sequence of ints.
        ValueError: If it has another length or an entry below ``minimum``.
    """
    values = tuple(value) if isinstance(value, Sequence) else (value,) * nd
    if len(values) != nd:
        raise ValueError(f'{name} must be an int or a sequence of {nd} ints; got {value!r}')
    for v in values:
        if isinstance(v, bool) or not hasattr(v, '__index__'):
            raise TypeError(f'{name} must be an int or a sequence of ints; got {value!r}')
    result = tuple(int(v) for v in values)
    if any(v < minimum for v in result):
        raise ValueError(f'{name} must be at least {minimum}; got {value!r}')
    return result


def size_argument(who: str, name: str, value: Any) -> Any:
    """Checks a link's size argument (``in_size``, ``out_size``).

    An int must not be negative; a string, a float or a bool is refused. A
    shape tuple passes unchanged, as Chainer lets it (a parameter of that
    shape).

    Raises:
        TypeError: For a string, a float or a bool.
        ValueError: For a negative int.
    """
    if isinstance(value, (str, bytes, float, bool, numpy.bool_, numpy.floating)):
        raise TypeError(f'{who}: {name} must be an int; got {value!r}')
    if isinstance(value, (int, numpy.integer)):
        if value < 0:
            raise ValueError(f'{who}: {name} must not be negative; got {value}')
        return int(value)
    return value


def as_groups(groups: Any) -> int:
    """Validates the number of groups (a positive int)."""
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f'groups must be a positive int; got {groups!r}')
    return groups


def check_channels(who: str, x: Any, nd: int, expected: int | None) -> int:
    """Returns the channel count of ``x`` after checking it is ``(n, c, *nd dims)``.

    Raises:
        ValueError: If ``x`` has another rank, or ``expected`` channels are
            set and ``x`` has another number.
    """
    shape = x.shape
    if len(shape) != nd + 2:
        dims = ', '.join(f'd{i + 1}' for i in range(nd)) if nd > 2 else \
            ('w' if nd == 1 else 'h, w')
        raise ValueError(f'{who} takes inputs of shape (n, c, {dims}); got x.shape={shape}')
    channels = int(shape[1])
    if expected is not None and channels != expected:
        raise ValueError(f'{who} has {expected} input channels, but x.shape={shape} has '
                         f'{channels}')
    return channels


class InputCountError(TypeError, AssertionError):
    """A link called with the wrong number of inputs (Chainer asserted it)."""


class AssertedValueError(ValueError, AssertionError):
    """A bad argument value that Chainer rejected with an assertion."""


def input_count_error(who: str, inputs: tuple[Any, ...], expected: int,
                      what: str) -> InputCountError:
    """The error for a link called with ``len(inputs)`` inputs instead of ``expected``.

    It is a :class:`TypeError` and, as in Chainer, an :class:`AssertionError`.
    """
    return InputCountError(f'{who} {what} takes {expected} '
                           f'input{"s" if expected > 1 else ""}; got {len(inputs)}')


def check_initial_shape(who: str, name: str, value: Any, shape: tuple[int, ...]) -> None:
    """Checks that an initial array (not a scalar or an initializer) has ``shape``.

    Raises:
        AssertedValueError: A :class:`ValueError` (and, as in Chainer, an
            :class:`AssertionError`) for another shape.
    """
    if hasattr(value, 'shape') and not callable(value) and tuple(value.shape) != shape:
        raise AssertedValueError(f'{who}: {name} must have the shape {shape}; '
                                f'got {tuple(value.shape)}')
