"""Properties computed once per backprop mode (``catena.utils.cache``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from catena.configuration import config

__all__ = ['cached_property']

T = TypeVar('T')


class cached_property(Generic[T]):  # noqa: N801 - named like functools.cached_property
    """A property computed on first access and then cached on the instance.

    Unlike :class:`functools.cached_property` it keeps one value per backprop
    mode (``catena.config.enable_backprop``): a Variable computed under
    :func:`catena.no_backprop_mode` has no graph, so it must not be returned
    where gradients are wanted, and the other way round. Distributions use
    it for values derived from their parameters.

    Args:
        getter: The method computing the value.

    .. admonition:: Example

        >>> from catena.utils import cache
        >>> class Box:
        ...     calls = 0
        ...     @cache.cached_property
        ...     def area(self):
        ...         Box.calls += 1
        ...         return 6
        >>> box = Box()
        >>> box.area, box.area, Box.calls
        (6, 6, 1)
    """

    def __init__(self, getter: Callable[[Any], T]) -> None:
        self._getter = getter
        self._key = f'_cached_property_{getter.__name__}'
        functools.update_wrapper(self, getter)  # type: ignore[arg-type]

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        values = obj.__dict__.setdefault(self._key, {})
        mode = bool(config.enable_backprop)
        if mode not in values:
            values[mode] = self._getter(obj)
        return values[mode]
