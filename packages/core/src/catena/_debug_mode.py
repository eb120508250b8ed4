"""``catena.DebugMode``: Chainer's context manager for debug mode."""

from __future__ import annotations

import warnings
from types import TracebackType

from catena.configuration import using_config


class DebugMode:
    """Turns debug mode (``catena.config.debug``) on or off within a ``with`` block.

    The value in force before the block comes back when it ends, even when an
    exception leaves it. In debug mode every forward and backward result is
    checked for NaN and Inf.

    .. deprecated::
        Kept for programs written for Chainer v1; use
        ``catena.using_config('debug', debug)``.

    Args:
        debug: Whether debug mode is on inside the block.

    .. admonition:: Example

        >>> import warnings
        >>> import catena
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore', DeprecationWarning)
        ...     with catena.DebugMode(True):
        ...         catena.is_debug()
        True
        >>> catena.is_debug()
        False
    """

    def __init__(self, debug: bool) -> None:
        warnings.warn("catena.DebugMode is deprecated; use catena.using_config('debug', ...)",
                      DeprecationWarning, stacklevel=2)
        self._context = using_config('debug', bool(debug))

    def __enter__(self) -> None:
        self._context.__enter__()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._context.__exit__(exc_type, exc, traceback)
