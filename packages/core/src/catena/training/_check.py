"""Checks of the observation-key arguments of triggers and extensions."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy

from catena.utils import _validate


def key(who: str, name: str, value: Any, *, optional: bool = False) -> Any:
    """Checks that ``value`` is an observation key (a str), or None with ``optional``.

    Raises:
        TypeError: If it is not a str.
    """
    if value is None and optional:
        return None
    if not isinstance(value, str):
        words = 'a str (an observation key)' + (' or None' if optional else '')
        raise _validate.wrong_kind(who, name, words, value)
    return value


def keys(who: str, name: str, value: Any, *, single: bool = False,
         optional: bool = False) -> Any:
    """Returns ``value``, a list of observation keys, as a tuple.

    Args:
        who: The owner named in the message.
        name: The argument's name.
        value: What was given.
        single: If True, one str is taken as a list of one key.
        optional: If True, None passes (and is returned).

    Raises:
        TypeError: If it is not an iterable of strs (a lone str counts only
            with ``single``).
    """
    if value is None and optional:
        return None
    words = ('a key or a list of keys' if single else 'a list of keys') + \
        (' or None' if optional else '')
    if isinstance(value, str):
        if single:
            return (value,)
        raise TypeError(f'{who}: {name} must be {words}, not one str; got '
                        f'{_validate.show(value)}')
    if not isinstance(value, Iterable):
        raise _validate.wrong_kind(who, name, words, value)
    result = tuple(value)
    for item in result:
        if not isinstance(item, str):
            raise TypeError(f'{who}: {name} must be strs ({words}); got '
                            f'{_validate.show(value)}, which holds {_validate.show(item)}')
    return result


def flag(who: str, name: str, value: Any) -> bool:
    """Checks that ``value`` is a bool (or an int used as one); returns it as a bool.

    Raises:
        TypeError: If it is anything else (a str such as ``'False'``, None).
    """
    if not isinstance(value, (bool, numpy.bool_)) and not _validate.is_int(value):
        raise _validate.wrong_kind(who, name, 'a bool', value)
    return bool(value)
