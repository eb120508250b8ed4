"""The summary and the printed table shared by the function and link TimerHooks."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, TextIO

#: Factors from seconds to each unit the reports can show.
UNITS = {'sec': 1.0, 'ms': 1e3, 'us': 1e6, 'ns': 1e9}


def choose_unit(seconds: float) -> tuple[float, str]:
    """The largest unit in which ``seconds`` is at least 1 (else ns), with its factor."""
    for unit in ('sec', 'ms', 'us'):
        if seconds * UNITS[unit] >= 1:
            return UNITS[unit], unit
    return UNITS['ns'], 'ns'


def summarize(call_history: Iterable[tuple[str, float]]) -> dict[str, dict[str, Any]]:
    """``{name: {'elapsed_time': seconds, 'occurrence': count}}`` in order of first call."""
    summary: dict[str, dict[str, Any]] = {}
    for name, elapsed in call_history:
        record = summary.setdefault(name, {'elapsed_time': 0.0, 'occurrence': 0})
        record['elapsed_time'] += elapsed
        record['occurrence'] += 1
    return summary


def print_report(summary: dict[str, dict[str, Any]], name_header: str, unit: str,
                 file: TextIO | None) -> None:
    """Prints the summary as a right-aligned table (see the TimerHooks' print_report).

    ``unit`` is a key of :data:`UNITS`, ``'auto'`` (the unit that suits the
    largest time, for every row) or ``'auto_foreach'`` (a unit for each row).
    """
    if unit not in ('auto', 'auto_foreach') and unit not in UNITS:
        raise ValueError("unit must be 'auto', 'auto_foreach' or one of "
                         f"{', '.join(UNITS)}; got {unit!r}")
    file = sys.stdout if file is None else file
    if unit == 'auto':
        largest = max((record['elapsed_time'] for record in summary.values()), default=0.0)
        factor, shown_unit = choose_unit(largest)
    elif unit != 'auto_foreach':
        factor, shown_unit = UNITS[unit], unit
    rows = [(name_header, 'ElapsedTime', 'Occurrence')]
    for name, record in summary.items():
        seconds = record['elapsed_time']
        if unit == 'auto_foreach':
            factor, shown_unit = choose_unit(seconds)
        rows.append((name, f'{seconds * factor:3.2f}{shown_unit}', str(record['occurrence'])))
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    for row in rows:
        file.write('  '.join(cell.rjust(width) for cell, width in zip(row, widths)) + '\n')
    flush = getattr(file, 'flush', None)
    if flush is not None:
        flush()
