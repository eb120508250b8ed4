"""Keyword-argument helpers for functions that take ``**kwargs`` (``catena.utils.argument``).

Chainer's functions accept some arguments through ``**kwargs`` to keep old
positional signatures working; these helpers unpack them and reject the
rest with the messages Chainer users know.
"""

from __future__ import annotations

import inspect
from typing import Any

__all__ = ['assert_kwargs_empty', 'check_unexpected_kwargs', 'parse_kwargs']


def check_unexpected_kwargs(kwargs: dict[str, Any], **unexpected: str) -> None:
    """Rejects keyword arguments that an older API accepted but this one does not.

    Args:
        kwargs: The keyword arguments received.
        unexpected: ``name=message`` pairs: when ``name`` is in ``kwargs``,
            ``message`` (which says what to use instead) is raised.

    Raises:
        ValueError: If one of the ``unexpected`` names was given.

    .. admonition:: Example

        >>> from catena.utils import argument
        >>> argument.check_unexpected_kwargs({'train': True}, train='use config.train')
        Traceback (most recent call last):
        ...
        ValueError: use config.train
    """
    for name, message in unexpected.items():
        if name in kwargs:
            raise ValueError(message)


def parse_kwargs(kwargs: dict[str, Any], *name_and_values: tuple[str, Any],
                 **unexpected: str) -> tuple[Any, ...]:
    """Takes the named keyword arguments out of ``kwargs``, with their defaults.

    ``kwargs`` is emptied of the names it returns; any name left over is an
    error that names the calling function, as Python's own message does.

    Args:
        kwargs: The keyword arguments received (modified in place).
        name_and_values: ``(name, default)`` pairs, in the order of the result.
        unexpected: ``name=message`` pairs, see :func:`check_unexpected_kwargs`.

    Returns:
        tuple: The value of each name, or its default when it was not given.

    Raises:
        ValueError: If one of the ``unexpected`` names was given.
        TypeError: If a name was given that is neither parsed nor listed, e.g.
            ``f() got unexpected keyword argument(s) 'ham', 'spam'``.

    .. admonition:: Example

        >>> from catena.utils import argument
        >>> def f(**kwargs):
        ...     return argument.parse_kwargs(kwargs, ('foo', 1), ('bar', 2))
        >>> f(bar=3)
        (1, 3)
    """
    values = tuple(kwargs.pop(name, default) for name, default in name_and_values)
    check_unexpected_kwargs(kwargs, **unexpected)
    if kwargs:
        _raise_unexpected(kwargs, _caller_name())
    return values


def assert_kwargs_empty(kwargs: dict[str, Any]) -> None:
    """Raises ``TypeError`` naming the calling function if ``kwargs`` is not empty."""
    if kwargs:
        _raise_unexpected(kwargs, _caller_name())


def _caller_name() -> str:
    # Two frames up: the function that received the keyword arguments.
    frame = inspect.currentframe()
    try:
        caller = frame.f_back.f_back if frame is not None and frame.f_back else None
        return caller.f_code.co_name if caller is not None else '<unknown>'
    finally:
        del frame


def _raise_unexpected(kwargs: dict[str, Any], function_name: str) -> None:
    names = ', '.join(repr(name) for name in sorted(kwargs))
    raise TypeError(f'{function_name}() got unexpected keyword argument(s) {names}')
