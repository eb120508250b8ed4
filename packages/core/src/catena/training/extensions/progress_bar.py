"""``ProgressBar``: draws the training's progress in a terminal."""

from __future__ import annotations

import collections
import datetime
import math
import sys
import time
from typing import Any, TextIO

from catena.training import extension
from catena.training.extensions import _console
from catena.training.triggers import _position
from catena.utils import _validate

_LINES = 4  # the bar redraws these many lines in place
_TIMING_WINDOW = 100  # the speed is measured over this many recent draws


def _bar(rate: float, length: int) -> str:
    marks = '#' * int(rate * length)
    return f'[{marks}{"." * (length - len(marks))}] {rate:6.2%}'


def _time_left(remaining: float, speed: float) -> str:
    if math.isinf(speed):
        return str(datetime.timedelta(0))
    if speed <= 0 or math.isnan(speed):
        return 'unknown'
    return str(datetime.timedelta(seconds=max(remaining, 0.0) / speed))


class ProgressBar(extension.Extension):
    """Draws the progress of the training, redrawn in place every ``update_interval`` steps.

    Four lines are drawn: a bar of the whole training, a bar of the current
    epoch, the iteration and epoch counts, and the recent speed with the
    estimated time to finish. ANSI escape codes move the cursor back, so the
    next drawing (or a :class:`PrintReport` row) replaces them.

    Nothing at all is written when ``out`` is not a terminal (its
    ``isatty()`` is false), so logs redirected to files stay clean.

    Args:
        training_length: The length of the training as ``(length, unit)``
            with unit ``'iteration'`` or ``'epoch'``; by default the stop
            trigger's ``get_training_length()``.
        update_interval: Draw every this many iterations.
        bar_length: The width of the bars in characters.
        out: The text stream to draw on (by default the ``sys.stdout`` of
            the moment the extension is created).
    """

    def __init__(self, training_length: tuple[float, str] | None = None,
                 update_interval: int = 100, bar_length: int = 50,
                 out: TextIO | None = None) -> None:
        if training_length is not None:
            training_length = self._check_training_length(training_length)
        for name, value in (('update_interval', update_interval), ('bar_length', bar_length)):
            _validate.integer('ProgressBar', name, value, 1)
        self._training_length = training_length
        self._update_interval = update_interval
        self._bar_length = bar_length
        self._out = sys.stdout if out is None else out
        self._recent_timing: collections.deque[tuple[int, float, float]] = (
            collections.deque(maxlen=_TIMING_WINDOW))
        self._drawn = False

    @staticmethod
    def _check_training_length(training_length: Any) -> tuple[float, str]:
        if not isinstance(training_length, (tuple, list)) or len(training_length) != 2:
            raise ValueError("ProgressBar: training_length must be a (length, unit) pair such as "
                             f"(20, 'epoch'); got {_validate.show(training_length)}")
        length, unit = training_length
        unit = _position.check_unit(unit, 'ProgressBar', "training_length's unit")
        _position.check_period(length, unit, "training_length's length", 'ProgressBar')
        return length, unit

    def _get_training_length(self, trainer: Any) -> tuple[float, str]:
        if self._training_length is None:
            get_length = getattr(trainer.stop_trigger, 'get_training_length', None)
            if get_length is None:
                raise TypeError('cannot tell the training length from the stop trigger '
                                f'{trainer.stop_trigger!r}; pass training_length=(length, unit) '
                                'to ProgressBar')
            self._training_length = self._check_training_length(get_length())
        return self._training_length

    def initialize(self, trainer: Any) -> None:
        """Notes where and when the run starts, so that the first speed is measured."""
        updater = trainer.updater
        self._recent_timing.append((updater.iteration, updater.epoch_detail,
                                    time.perf_counter()))

    def __call__(self, trainer: Any) -> None:
        """Redraws the progress every ``update_interval`` iterations (on a terminal)."""
        updater = trainer.updater
        iteration = updater.iteration
        if iteration % self._update_interval != 0 or not _console.is_terminal(self._out):
            return
        length, unit = self._get_training_length(trainer)
        epoch_detail = updater.epoch_detail
        now = time.perf_counter()
        timing = self._recent_timing
        timing.append((iteration, epoch_detail, now))
        old_iteration, old_epoch_detail, old_now = timing[0]
        span = now - old_now
        speed_iterations = (iteration - old_iteration) / span if span > 0 else math.inf
        speed_epochs = (epoch_detail - old_epoch_detail) / span if span > 0 else math.inf
        if unit == 'iteration':
            position, speed = float(iteration), speed_iterations
        else:
            position, speed = epoch_detail, speed_epochs
        rate = min(position / length, 1.0)
        epoch_rate = epoch_detail - int(epoch_detail)
        text = ''.join((
            _console.ERASE_BELOW,
            f'     total {_bar(rate, self._bar_length)}\n',
            f'this epoch {_bar(epoch_rate, self._bar_length)}\n',
            f'{iteration:10} iter, {updater.epoch} epoch / {length} {unit}s\n',
            f'{speed_iterations:10.5g} iters/sec. Estimated time to finish: '
            f'{_time_left(length - position, speed)}.\n',
            _console.cursor_up(_LINES),
        ))
        self._out.write(text)
        _console.flush(self._out)
        self._drawn = True

    def finalize(self) -> None:
        """Erases the bar, if one was drawn."""
        if self._drawn:
            self._out.write(_console.ERASE_BELOW)
            _console.flush(self._out)
            self._drawn = False


__all__ = ['ProgressBar']
