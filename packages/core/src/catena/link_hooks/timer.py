"""``TimerHook``: the elapsed time of every link's forward computation."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from catena import link_hook

_UNITS = {'sec': 1.0, 'ms': 1e3, 'us': 1e6, 'ns': 1e9}


def _choose_unit(seconds: float) -> tuple[float, str]:
    """The largest unit in which ``seconds`` is at least 1 (ns at the least)."""
    for unit in ('sec', 'ms', 'us'):
        if seconds * _UNITS[unit] >= 1:
            return _UNITS[unit], unit
    return _UNITS['ns'], 'ns'


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
    table = dict(_UNITS)

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
        summary: dict[str, dict[str, Any]] = {}
        for link_name, elapsed in self.call_history:
            record = summary.setdefault(link_name, {'elapsed_time': 0.0, 'occurrence': 0})
            record['elapsed_time'] += elapsed
            record['occurrence'] += 1
        return summary

    def print_report(self, unit: str = 'auto', file: TextIO | None = None) -> None:
        """Prints a table of the time and the number of calls of each link class.

        Args:
            unit: ``'sec'``, ``'ms'``, ``'us'``, ``'ns'``, or ``'auto'`` to
                pick for each row the largest unit in which the time is at
                least 1.
            file: A writable text stream (default: the current standard
                output).
        """
        if unit != 'auto' and unit not in _UNITS:
            raise ValueError(f"unit must be 'auto' or one of {', '.join(_UNITS)}; got {unit!r}")
        file = sys.stdout if file is None else file
        rows = [('LinkName', 'ElapsedTime', 'Occurrence')]
        for link_name, record in self.summary().items():
            seconds = record['elapsed_time']
            factor, shown_unit = _choose_unit(seconds) if unit == 'auto' else (_UNITS[unit], unit)
            rows.append((link_name, f'{seconds * factor:3.2f}{shown_unit}',
                         str(record['occurrence'])))
        widths = [max(len(row[column]) for row in rows) for column in range(3)]
        for row in rows:
            file.write('  '.join(cell.rjust(width) for cell, width in zip(row, widths)) + '\n')
        flush = getattr(file, 'flush', None)
        if flush is not None:
            flush()


__all__ = ['TimerHook']
