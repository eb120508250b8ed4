"""``TimerHook``: the elapsed time of every link's forward computation."""

from __future__ import annotations

import time
from typing import Any, TextIO

from catena import _timing_report, link_hook


class TimerHook(link_hook.LinkHook):
    """Measures the time the forward computation of every link takes.

    Each call of a hooked link adds a ``(link class name, seconds)`` pair to
    :attr:`call_history`. When a link calls other links (a chain calling its
    children), every call is recorded, but :meth:`total_time` counts only the
    outermost ones. On an asynchronous device the hook synchronizes the
    link's device before reading the clock, so the times include the
    device's work.

    Use it on one link with :meth:`catena.Link.add_hook` (that link only) or
    for every link called in a ``with`` block.

    Args:
        name: The name of the hook (default ``'TimerHook'``).

    Attributes:
        call_history: The list of ``(link class name, elapsed seconds)``.

    .. admonition:: Example

        >>> from catena.link_hooks import TimerHook
        >>> layer = L.Linear(3, 2)
        >>> with TimerHook() as hook:
        ...     y = layer(np.ones((1, 3), np.float32))
        >>> hook.print_report()  # doctest: +SKIP
        LinkName  ElapsedTime  Occurrence
          Linear      0.04ms           1
    """

    name = 'TimerHook'
    table = dict(_timing_report.UNITS)

    def __init__(self, name: str = 'TimerHook') -> None:
        if not isinstance(name, str):
            raise TypeError(f'name must be a str; got {type(name).__name__}')
        self.name = name
        self.call_history: list[tuple[str, float]] = []
        self._running: list[tuple[Any, float]] = []
        self._total_time = 0.0

    def forward_preprocess(self, args: Any) -> None:
        link = args.link
        link.device.synchronize()
        self._running.append((link, time.perf_counter()))

    def forward_postprocess(self, args: Any) -> None:
        link = args.link
        link.device.synchronize()
        stop = time.perf_counter()
        # Entries above this link's are left by inner calls that raised.
        while self._running:
            running_link, start = self._running.pop()
            if running_link is link:
                break
        else:
            return
        elapsed = stop - start
        self.call_history.append((type(link).__name__, elapsed))
        if not self._running:
            self._total_time += elapsed

    def total_time(self) -> float:
        """Returns the total elapsed seconds of the outermost calls."""
        return self._total_time

    def summary(self) -> dict[str, dict[str, Any]]:
        """Returns ``{link class name: {'elapsed_time': seconds, 'occurrence': count}}``.

        The names appear in the order of their first call.
        """
        return _timing_report.summarize(self.call_history)

    def print_report(self, unit: str = 'auto', file: TextIO | None = None) -> None:
        """Prints a table of the time and the number of calls of each link class.

        Args:
            unit: ``'sec'``, ``'ms'``, ``'us'``, ``'ns'``; ``'auto'`` for
                the largest unit in which the longest time is at least 1,
                used for every row; or ``'auto_foreach'`` to pick that unit
                for each row.
            file: A writable text stream (default: the current standard
                output).
        """
        _timing_report.print_report(self.summary(), 'LinkName', unit, file)


__all__ = ['TimerHook']
