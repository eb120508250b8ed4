"""``PrintReport``: prints chosen entries of a ``LogReport``'s log as a table."""

from __future__ import annotations

import numbers
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from catena.training import _check, extension
from catena.training.extensions import _console, log_report as log_report_module
from catena.utils import _validate

_MIN_WIDTH = 10


def _format_cell(value: Any, width: int) -> str:
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return f'{value:<{width}g}'
    return f'{value!s:<{width}}'


class PrintReport(extension.Extension):
    """Prints entries of a :class:`LogReport`'s log as a table, one row per log entry.

    The first call prints a header with the entry names; each later entry of
    the log is printed as a row once. Every column is as wide as its name, at
    least 10 characters, and columns are separated by two spaces; numbers are
    printed with the ``g`` format, and an entry missing from a log entry
    leaves its cell blank.

    Args:
        entries: The keys of the log entries to print, in column order.
        log_report: The name of a :class:`LogReport` registered to the
            trainer, or a :class:`LogReport` that this extension owns and
            calls itself.
        out: The text stream to print to (by default the ``sys.stdout`` of
            the moment the extension is created).
    """

    def __init__(self, entries: Sequence[str], log_report: str | Any = 'LogReport',
                 out: TextIO | None = None) -> None:
        entries = list(_check.keys('PrintReport', 'entries', entries))
        if not isinstance(log_report, (str, log_report_module.LogReport)):
            raise TypeError('PrintReport: log_report must be the name of a LogReport extension or '
                            f'a LogReport; got {_validate.show(log_report)}')
        if out is not None and not callable(getattr(out, 'write', None)):
            raise TypeError('PrintReport: out must be a text stream (with write()) or None; got '
                            f'{_validate.show(out)}')
        self._entries = entries
        self._log_report = log_report
        self._out = sys.stdout if out is None else out
        self._log_len = 0  # how many log entries were printed
        self._widths = [max(_MIN_WIDTH, len(entry)) for entry in entries]
        self._header: str | None = '  '.join(
            f'{entry:{width}}' for entry, width in zip(entries, self._widths)) + '\n'

    def __call__(self, trainer: Any) -> None:
        """Prints the header (first call) and the log entries not printed yet."""
        out = self._out
        wrote = self._header is not None
        if self._header is not None:
            out.write(self._header)
            self._header = None
        log_report = self._log_report
        if isinstance(log_report, str):
            log_report = trainer.get_extension(log_report)
        else:
            log_report(trainer)
        log = log_report.log
        terminal = _console.is_terminal(out)
        while self._log_len < len(log):
            if terminal:
                out.write(_console.ERASE_BELOW)
            out.write(self._format_row(log[self._log_len]))
            self._log_len += 1
            wrote = True
        if wrote:
            _console.flush(out)

    def _format_row(self, observation: dict[str, Any]) -> str:
        cells = [_format_cell(observation[entry], width) + '  ' if entry in observation
                 else ' ' * (width + 2)
                 for entry, width in zip(self._entries, self._widths)]
        return ''.join(cells) + '\n'

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the owned :class:`LogReport` under ``_log_report`` (Chainer's key).

        A log report referred to by name is saved by the trainer itself.
        """
        if isinstance(self._log_report, log_report_module.LogReport):
            self._log_report.serialize(serializer['_log_report'])


__all__ = ['PrintReport']
