"""Checks of constructor arguments, shared by links, optimizers and iterators.

Each check raises an error that names the owner, the argument, what was
expected and what came, e.g. ``Convolution2D: ksize must be a positive int
or a pair of them; got 0``: a :class:`TypeError` for a value of the wrong
kind, a :class:`ValueError` for one out of range. They run once, when an
object is built, never on a per-call path.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy

_TUPLE_NAMES = {1: 'a sequence of one', 2: 'a pair', 3: 'a triple'}


def show(value: Any) -> str:
    """Describes ``value`` briefly for an error message (arrays by shape and dtype)."""
    if hasattr(value, 'shape') and hasattr(value, 'dtype') and \
            not isinstance(value, numpy.generic):
        return f'an array of shape {tuple(value.shape)} and dtype {value.dtype}'
    text = str(value) if isinstance(value, numpy.number) else repr(value)
    return text if len(text) <= 80 else text[:77] + '...'


def _fail(error: type[Exception], who: str, name: str, expected: str, value: Any) -> Exception:
    return error(f'{who}: {name} must be {expected}; got {show(value)}')


def wrong_kind(who: str, name: str, expected: str, value: Any) -> TypeError:
    """The TypeError ``{who}: {name} must be {expected}; got {value}``, to raise."""
    return TypeError(f'{who}: {name} must be {expected}; got {show(value)}')


def is_int(value: Any) -> bool:
    """Whether ``value`` is an int (a Python or NumPy integer, not a bool)."""
    return hasattr(value, '__index__') and not isinstance(value, (bool, numpy.bool_)) and \
        not hasattr(value, 'shape') or isinstance(value, numpy.integer)


def _int_words(minimum: int) -> str:
    if minimum == 0:
        return 'a non-negative int'
    if minimum == 1:
        return 'a positive int'
    return f'an int >= {minimum}'


def integer(who: str, name: str, value: Any, minimum: int | None = 0, *,
            optional: bool = False) -> Any:
    """Checks that ``value`` is an int of at least ``minimum``; returns it as an int.

    Args:
        who: The owner named in the message (a class name).
        name: The argument's name.
        value: What was given.
        minimum: The least value allowed, or None for no bound.
        optional: If True, None passes (and is returned).

    Raises:
        TypeError: If ``value`` is not an int (a bool, a float or a string).
        ValueError: If it is below ``minimum``.
    """
    if value is None and optional:
        return None
    words = 'an int' if minimum is None else _int_words(minimum)
    if optional:
        words += ' or None'
    if not is_int(value):
        raise _fail(TypeError, who, name, words, value)
    result = int(value)
    if minimum is not None and result < minimum:
        raise _fail(ValueError, who, name, words, value)
    return result


def _interval(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    if high is None:
        if low is None:
            return 'a real number'
        if low == 0:
            return 'a positive real number' if low_open else 'a non-negative real number'
        return f'a real number {">" if low_open else ">="} {low}'
    left = '(' if low_open else '['
    right = ')' if high_open else ']'
    return f'a real number in {left}{"-inf" if low is None else low}, {high}{right}'


def real(who: str, name: str, value: Any, low: float | None = None, high: float | None = None,
         *, low_open: bool = False, high_open: bool = False, optional: bool = False) -> Any:
    """Checks that ``value`` is a real number in the given interval; returns it unchanged.

    Args:
        who: The owner named in the message.
        name: The argument's name.
        value: What was given: a Python or NumPy real scalar.
        low: The lower bound, or None.
        high: The upper bound, or None.
        low_open: If True, ``low`` itself is outside the interval.
        high_open: If True, ``high`` itself is outside the interval.
        optional: If True, None passes.

    Raises:
        TypeError: If ``value`` is not a real number (a string, None, a bool).
        ValueError: If it is NaN or outside the interval.
    """
    if value is None and optional:
        return None
    words = _interval(low, high, low_open, high_open)
    if isinstance(value, (bool, numpy.bool_)) or not isinstance(value, numbers.Real):
        raise _fail(TypeError, who, name, words, value)
    number = float(value)
    if math.isnan(number) or \
            low is not None and (number <= low if low_open else number < low) or \
            high is not None and (number >= high if high_open else number > high):
        raise _fail(ValueError, who, name, words, value)
    return value


def int_tuple(who: str, name: str, value: Any, nd: int, minimum: int = 1) -> tuple[int, ...]:
    """Returns ``value`` (an int, or ``nd`` ints) as an ``nd``-tuple of ints.

    Raises:
        TypeError: If it is neither an int nor a sequence of ints.
        ValueError: If it has another length or an entry below ``minimum``.
    """
    words = f'{_int_words(minimum)} or {_TUPLE_NAMES.get(nd, f"a sequence of {nd}")} of them'
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        values = tuple(value)
        if len(values) != nd:
            raise _fail(ValueError, who, name, words, value)
    else:
        values = (value,) * nd
    if not all(is_int(v) for v in values):
        raise _fail(TypeError, who, name, words, value)
    result = tuple(int(v) for v in values)
    if any(v < minimum for v in result):
        raise _fail(ValueError, who, name, words, value)
    return result


def shape(who: str, name: str, value: Any, *, optional: bool = False) -> Any:
    """Checks a shape argument: an int or a sequence of non-negative ints; returns a tuple.

    Raises:
        TypeError: If it is neither an int nor a sequence of ints.
        ValueError: If a dimension is negative.
    """
    if value is None and optional:
        return None
    words = 'a shape (a non-negative int or a sequence of them)'
    if optional:
        words += ' or None'
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        dims = tuple(value)
    else:
        dims = (value,)
    if not all(is_int(d) for d in dims):
        raise _fail(TypeError, who, name, words, value)
    if any(int(d) < 0 for d in dims):
        raise _fail(ValueError, who, name, words, value)
    return tuple(int(d) for d in dims)


def function(who: str, name: str, value: Any, *, optional: bool = False) -> Any:
    """Checks that ``value`` is callable (or None with ``optional``); returns it.

    Raises:
        TypeError: If it is not callable.
    """
    if value is None and optional:
        return None
    if not callable(value):
        raise _fail(TypeError, who, name, 'callable' + (' or None' if optional else ''), value)
    return value


def broadcastable(who: str, name: str, value: Any, target: tuple[int, ...]) -> None:
    """Checks that an initial array ``value`` can fill a parameter of shape ``target``.

    Scalars, initializers and None pass; an array must broadcast to ``target``.

    Raises:
        ValueError: If the array's shape cannot broadcast to ``target``.
    """
    if callable(value) or not hasattr(value, 'shape'):
        return
    got = tuple(value.shape)
    if len(got) > len(target) or any(g not in (1, t) for g, t in
                                     zip(reversed(got), reversed(target))):
        raise ValueError(f'{who}: {name} must be an array of shape {tuple(target)} (or one '
                         f'that broadcasts to it); got {show(value)}')
