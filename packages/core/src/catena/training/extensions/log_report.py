"""``LogReport``: averages the observations over an interval and writes them to a JSON log."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from typing import Any

import numpy

from catena import _atomic, reporter, serializer as serializer_module
from catena.training import _check, extension, trigger as trigger_module
from catena.utils import _validate


class _Unset:
    def __repr__(self) -> str:
        return '<unset>'


_UNSET: Any = _Unset()


def stored_text(value: Any) -> str:
    """A string loaded by a deserializer, which may come as a 0-d array or bytes."""
    if isinstance(value, numpy.ndarray):
        value = value.item()
    if isinstance(value, bytes):
        return value.decode('utf-8')
    if not isinstance(value, str):
        raise TypeError(f'the stored log must be a JSON string, got {type(value).__name__}')
    return value


def summary_to_entry(summary: reporter.DictSummary, trainer: Any) -> dict[str, Any]:
    """The means of ``summary`` as floats, plus the trainer's ``epoch`` and ``iteration``.

    Args:
        summary: The accumulated observations.
        trainer: The trainer whose updater gives the position.

    Returns:
        A new dict of Python numbers, ready for JSON.
    """
    entry = {name: float(value) for name, value in summary.compute_mean().items()}
    updater = trainer.updater
    entry['epoch'] = updater.epoch
    entry['iteration'] = updater.iteration
    return entry


def accumulate(summary: reporter.DictSummary, observation: dict[str, Any],
               keys: Iterable[str] | None) -> None:
    """Adds ``observation`` (only ``keys``, when given) to ``summary``."""
    if keys is None:
        summary.add(observation)
    else:
        summary.add({key: observation[key] for key in keys if key in observation})


class LogReport(extension.Extension):
    """Averages the observations over an interval and writes the results to a JSON log.

    The extension itself runs every iteration (its trigger is the default
    ``(1, 'iteration')``) and adds the trainer's observation to a
    :class:`~catena.DictSummary`. Whenever ``trigger`` fires it appends an
    entry to :attr:`log` holding the mean of each observed value plus
    ``'epoch'``, ``'iteration'`` and ``'elapsed_time'``, writes the whole
    log to ``trainer.out`` and starts a fresh summary.

    The file is a JSON list of those dicts with an indent of 4, as Chainer
    writes it. It is replaced atomically: readers see the previous log or the
    complete new one, never a partial file.

    Args:
        keys: The observation keys to average; None averages every scalar.
        trigger: When to emit an entry: a trigger or ``(period, unit)``.
        postprocess: Called with each new entry (a dict) before it is stored
            and written; it may edit the dict in place.
        filename: The log's file name under ``trainer.out``. It may be a
            format string filled from the entry (``'log_{iteration}'``).
            None keeps the log in memory only.
        log_name: The former name of ``filename``.
    """

    def __init__(self, keys: Iterable[str] | None = None, trigger: Any = (1, 'epoch'),
                 postprocess: Callable[[dict[str, Any]], Any] | None = None,
                 filename: str | None = 'log', *, log_name: Any = _UNSET) -> None:
        if log_name is not _UNSET:
            if filename != 'log':
                raise TypeError('LogReport takes either filename or its old name log_name, '
                                f'not both (filename={filename!r}, log_name={log_name!r})')
            filename = log_name
        if filename is not None and not isinstance(filename, str):
            raise TypeError(f'LogReport: filename must be a str or None; got '
                            f'{_validate.show(filename)}')
        _validate.function('LogReport', 'postprocess', postprocess, optional=True)
        self._keys = _check.keys('LogReport', 'keys', keys, optional=True)
        self._trigger = trigger_module.resolve(trigger, 'LogReport', 'trigger')
        self._postprocess = postprocess
        self._log_name = filename
        self._log: list[dict[str, Any]] = []
        self._summary = reporter.DictSummary()

    @property
    def log(self) -> list[dict[str, Any]]:
        """The entries emitted so far (the list itself, oldest first)."""
        return self._log

    def __call__(self, trainer: Any) -> None:
        """Adds the current observation; emits an entry when the trigger fires."""
        accumulate(self._summary, trainer.observation, self._keys)
        if not self._trigger(trainer):
            return
        entry = summary_to_entry(self._summary, trainer)
        entry['elapsed_time'] = trainer.elapsed_time
        if self._postprocess is not None:
            self._postprocess(entry)
        if self._log_name is not None:
            # Serialize before touching the disk, so a bad value leaves the file as it was.
            text = json.dumps(self._log + [entry], indent=4)
            path = os.path.join(trainer.out, self._log_name.format(**entry))
            with _atomic.atomic_path(path) as temporary, \
                    open(temporary, 'w', encoding='utf-8') as stream:
                stream.write(text)
        self._log.append(entry)
        self._summary = reporter.DictSummary()

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the trigger, the running summary and the log.

        The keys are Chainer's: ``_trigger/...``, ``_summary/...`` and
        ``_log`` (the log as a JSON string).
        """
        current = json.dumps(self._log)
        if isinstance(serializer, serializer_module.Serializer):
            log = self._log
            serializer('_log', current)
        else:
            # The current log is passed (not ''), so a load's dry run reads valid JSON.
            log = json.loads(stored_text(serializer('_log', current)))
            if not isinstance(log, list):
                raise ValueError(f'the stored log must be a JSON list, got {type(log).__name__}')
        if hasattr(self._trigger, 'serialize'):
            self._trigger.serialize(serializer['_trigger'])
        self._summary.serialize(serializer['_summary'])
        self._log = log

__all__ = ['LogReport']
