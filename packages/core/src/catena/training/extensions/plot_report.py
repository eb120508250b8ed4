"""``PlotReport``: plots the interval means of observed values into an image file."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from typing import Any

import numpy

from catena import reporter, serializer as serializer_module
from catena.training import _check, extension, trigger as trigger_module
from catena.training.extensions import _plotting, log_report
from catena.utils import _validate


def _check_data(data: Any, y_keys: tuple[str, ...]) -> dict[str, list[Any]]:
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise ValueError('the stored plot data must be a JSON object of lists of [x, y] '
                         f'points, got {type(data).__name__}')
    return {key: list(data.get(key, [])) for key in y_keys}


class PlotReport(extension.Extension):
    """Plots the means of observed values over intervals and saves the figure.

    Like :class:`LogReport`, it adds the observation of every iteration to a
    summary; when ``trigger`` fires, it appends the mean of each of
    ``y_keys`` as a point at ``x_key`` (``'iteration'``, ``'epoch'``,
    ``'elapsed_time'`` or an observed key), redraws the figure and writes it
    to ``trainer.out`` atomically, in the format named by the file's
    extension.

    matplotlib is needed (``pip install matplotlib``); without it the
    extension warns once it is created and does nothing. It draws on its
    own Agg canvas, never through pyplot, so it neither changes nor depends
    on the backend chosen by the user.

    Args:
        y_keys: The observed key, or keys, to plot.
        x_key: The key of the x axis.
        trigger: When to add points and save the figure: a trigger or
            ``(period, unit)``.
        postprocess: Called as ``postprocess(figure, axes, summary)`` before
            the figure is saved (when it has data), to edit it.
        filename: The image's file name under ``trainer.out`` (default
            ``'plot.png'``).
        marker: The marker of the points (None for none).
        grid: Whether to draw the grid.
        file_name: The former name of ``filename``.
    """

    def __init__(self, y_keys: str | Iterable[str], x_key: str = 'iteration',
                 trigger: Any = (1, 'epoch'), postprocess: Callable[..., Any] | None = None,
                 filename: str | None = None, marker: str | None = 'x', grid: bool = True,
                 *, file_name: str | None = None) -> None:
        if filename is not None and file_name is not None:
            raise TypeError('PlotReport takes either filename or its old name file_name, not '
                            f'both (filename={filename!r}, file_name={file_name!r})')
        filename = filename if filename is not None else file_name
        if filename is None:
            filename = 'plot.png'
        if not isinstance(filename, str):
            raise TypeError(f'PlotReport: filename must be a str; got {_validate.show(filename)}')
        keys = _check.keys('PlotReport', 'y_keys', y_keys, single=True)
        _check.key('PlotReport', 'x_key', x_key)
        _validate.function('PlotReport', 'postprocess', postprocess, optional=True)
        _plotting.available('PlotReport')
        self._x_key = x_key
        self._y_keys = keys
        self._trigger = trigger_module.resolve(trigger, 'PlotReport', 'trigger')
        self._postprocess = postprocess
        self._file_name = filename
        self._marker = marker
        self._grid = grid
        self._summary = reporter.DictSummary()
        self._data: dict[str, list[Any]] = {key: [] for key in keys}

    @staticmethod
    def available() -> bool:
        """Whether matplotlib is installed (warns when it is not)."""
        return _plotting.available('PlotReport')

    def __call__(self, trainer: Any) -> None:
        """Adds the observation; adds points and saves the figure when the trigger fires."""
        if not _plotting.is_installed():
            return
        log_report.accumulate(self._summary, trainer.observation, self._y_keys + (self._x_key,))
        if not self._trigger(trainer):
            return
        entry = log_report.summary_to_entry(self._summary, trainer)
        entry['elapsed_time'] = trainer.elapsed_time
        data = {key: list(points) for key, points in self._data.items()}
        x = entry.get(self._x_key)
        if x is not None:
            for key in self._y_keys:
                if key in entry:
                    data[key].append([x, entry[key]])
        self._draw(data, os.path.join(trainer.out, self._file_name))
        self._data = data
        self._summary = reporter.DictSummary()

    def _draw(self, data: dict[str, list[Any]], path: str) -> None:
        figure = _plotting.new_figure()
        axes = figure.add_subplot(111)
        axes.set_xlabel(self._x_key)
        if self._grid:
            axes.grid(True)
        for key in self._y_keys:
            if data[key]:
                points = numpy.asarray(data[key], dtype=numpy.float64)
                axes.plot(points[:, 0], points[:, 1], marker=self._marker, label=key)
        if not axes.has_data():
            return
        if self._postprocess is not None:
            self._postprocess(figure, axes, self._summary)
        legend = axes.legend(bbox_to_anchor=(1.05, 1), loc='upper left', borderaxespad=0.0)
        _plotting.save_figure(figure, path, bbox_extra_artists=(legend,), bbox_inches='tight')

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the plotted points, the trigger and the running summary.

        The points are JSON under ``_plot_<filename>`` (Chainer's key). The
        trigger (``_trigger/...``) and the summary (``_summary/...``) are
        saved as :class:`LogReport` saves them, so a resumed run plots the
        same points as an uninterrupted one; Chainer does not save them, and
        its snapshots load with a warning that they are missing.
        """
        key = f'_plot_{self._file_name}'
        current = json.dumps(self._data)
        if isinstance(serializer, serializer_module.Serializer):
            serializer(key, current)
            data = self._data
        else:
            # The current data is passed (not ''), so a load's dry run reads valid JSON.
            data = _check_data(json.loads(log_report.stored_text(serializer(key, current))),
                               self._y_keys)
        if hasattr(self._trigger, 'serialize'):
            self._trigger.serialize(serializer['_trigger'])
        self._summary.serialize(serializer['_summary'])
        self._data = data

__all__ = ['PlotReport']
