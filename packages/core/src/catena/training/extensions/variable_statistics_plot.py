"""``VariableStatisticsPlot``: plots statistics of parameters (and their gradients) over time."""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy

from catena import backend, link as link_module, variable as variable_module
from catena.training import _check, extension, trigger as trigger_module
from catena.training.extensions import _plotting
from catena.utils import _validate

_PLOT_COLOR = '#1f77b4'
_ERROR_COLOR = _PLOT_COLOR + '4f'
_FILL_STYLE = {'alpha': 0.2, 'linewidth': 0, 'color': _PLOT_COLOR}
_DEFAULT_SIGMAS = (0, 0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87, 100)


class Reservoir:
    """A uniform random sample of at most ``size`` items of a stream (reservoir sampling).

    The first ``size`` items are kept; afterwards the n-th item replaces a
    random kept one with probability ``size / n``, so every item of the
    stream is equally likely to be in the sample.

    Args:
        size: The most items kept.
        data_shape: The shape of one item.
        dtype: The dtype of the items.
    """

    def __init__(self, size: int, data_shape: tuple[int, ...],
                 dtype: Any = numpy.float32) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f'size must be a positive int, got {size!r}')
        self.size = size
        self.data = numpy.zeros((size,) + tuple(data_shape), dtype=dtype)
        self.idxs = numpy.zeros((size,), dtype=numpy.int64)
        self.counter = 0
        self._random = numpy.random.default_rng()

    def add(self, x: Any, idx: int | None = None) -> None:
        """Offers the item ``x``, labelled ``idx`` (by default its position in the stream)."""
        if self.counter < self.size:
            slot: int | None = self.counter
        elif self._random.random() < self.size / (self.counter + 1):
            slot = int(self._random.integers(self.size))
        else:
            slot = None
        if slot is not None:
            self.data[slot] = x
            self.idxs[slot] = self.counter if idx is None else idx
        self.counter += 1

    def get_data(self) -> tuple[numpy.ndarray, numpy.ndarray]:
        """Returns the kept labels and items, sorted by label."""
        kept = min(self.counter, self.size)
        order = numpy.argsort(self.idxs[:kept], kind='stable')
        return self.idxs[:kept][order], self.data[:kept][order]


class Statistician:
    """Computes the mean, standard deviation and percentiles of an array.

    Args:
        collect_mean: Whether to compute the mean (key ``'mean'``).
        collect_std: Whether to compute the standard deviation (``'std'``).
        percentile_sigmas: The percentiles in [0, 100] to compute
            (``'percentile'``); empty for none.
    """

    def __init__(self, collect_mean: bool, collect_std: bool,
                 percentile_sigmas: Sequence[float]) -> None:
        self.collect_mean = collect_mean
        self.collect_std = collect_std
        self.percentile_sigmas = tuple(percentile_sigmas)

    def __call__(self, x: Any, axis: Any = 0, dtype: Any = None,
                 xp: Any = None) -> dict[str, Any]:
        """Returns the statistics of ``x`` along ``axis`` (None: all axes) in a dict."""
        if axis is None:
            axis = tuple(range(x.ndim))
        elif not isinstance(axis, (tuple, list)):
            axis = (axis,)
        return self.collect(x, tuple(axis))

    def collect(self, x: Any, axis: tuple[int, ...]) -> dict[str, Any]:
        """Returns the statistics of ``x`` along ``axis``."""
        out: dict[str, Any] = {}
        if self.collect_mean:
            out['mean'] = x.mean(axis=axis)
        if self.collect_std:
            out['std'] = x.std(axis=axis)
        if self.percentile_sigmas:
            xp = backend.get_array_module(x)
            out['percentile'] = xp.percentile(x, self.percentile_sigmas, axis=axis)
        return out


def _unpack_variables(targets: Any) -> list[Any]:
    if isinstance(targets, variable_module.Variable):
        return [targets]
    if isinstance(targets, link_module.Link):
        return list(targets.params(include_uninit=True))
    if isinstance(targets, (list, tuple)):
        return [var for target in targets for var in _unpack_variables(target)]
    raise TypeError('VariableStatisticsPlot: targets must be a Variable, a Link or a list of '
                    f'them; got {_validate.show(targets)}')


def _percentiles(percentile_sigmas: Any) -> tuple[float, ...]:
    if percentile_sigmas is None:
        return ()
    if isinstance(percentile_sigmas, numbers.Real):
        percentile_sigmas = (percentile_sigmas,)
    words = 'a number or a sequence of numbers in [0, 100], or None'
    if isinstance(percentile_sigmas, str) or not isinstance(percentile_sigmas, Iterable):
        raise TypeError(f'VariableStatisticsPlot: percentile_sigmas must be {words}; got '
                        f'{_validate.show(percentile_sigmas)}')
    sigmas = tuple(_validate.real('VariableStatisticsPlot', 'percentile_sigmas', sigma, 0, 100)
                   for sigma in percentile_sigmas)
    sigmas = tuple(float(sigma) for sigma in sigmas)
    return sigmas


class VariableStatisticsPlot(extension.Extension):
    """Plots statistics of variables' values and gradients over the iterations.

    Each call (every iteration by default) computes, over all elements of
    all the target variables together, the mean, the standard deviation
    and the percentiles of their values (``data``) and of their gradients
    (``grad``), and keeps them in a fixed-size random sample of iterations
    (reservoir sampling). When ``trigger`` fires the sample is plotted: one
    column per kind (``data``, ``grad``), a row with the mean and standard
    deviation and a row with the percentiles as bands; the image is written
    to ``trainer.out`` atomically.

    matplotlib is needed (``pip install matplotlib``); without it the
    extension does nothing. It draws on its own Agg canvas, never through
    pyplot.

    Args:
        targets: A Variable, a Link (all its parameters) or a list of them.
        max_sample_size: The most iterations kept in the sample.
        report_data: Whether to plot the statistics of the values.
        report_grad: Whether to plot the statistics of the gradients.
        plot_mean: Whether to plot the mean.
        plot_std: Whether to plot the standard deviation.
        percentile_sigmas: The percentiles in [0, 100] to plot (a number or a
            sequence; empty or None for none).
        trigger: When to save the image: a trigger or ``(period, unit)``.
        filename: The image's file name under ``trainer.out`` (default
            ``'statistics.png'``).
        figsize: The figure size in inches (matplotlib's ``figsize``).
        marker: The marker of the points (None for none).
        grid: Whether to draw grids.
        file_name: The former name of ``filename``.
    """

    def __init__(self, targets: Any, max_sample_size: int = 1000, report_data: bool = True,
                 report_grad: bool = True, plot_mean: bool = True, plot_std: bool = True,
                 percentile_sigmas: Any = _DEFAULT_SIGMAS, trigger: Any = (1, 'epoch'),
                 filename: str | None = None, figsize: tuple[float, float] | None = None,
                 marker: str | None = None, grid: bool = True, *,
                 file_name: str | None = None) -> None:
        if filename is not None and file_name is not None:
            raise TypeError('VariableStatisticsPlot takes either filename or its old name '
                            f'file_name, not both (filename={filename!r}, '
                            f'file_name={file_name!r})')
        filename = filename if filename is not None else file_name
        if filename is None:
            filename = 'statistics.png'
        if not isinstance(filename, str):
            raise TypeError('VariableStatisticsPlot: filename must be a str; got '
                            f'{_validate.show(filename)}')
        who = 'VariableStatisticsPlot'
        variables = _unpack_variables(targets)
        if not variables:
            raise ValueError(f'{who}: targets hold no variable to collect statistics of')
        _validate.integer(who, 'max_sample_size', max_sample_size, 1)
        for name, value in (('report_data', report_data), ('report_grad', report_grad),
                            ('plot_mean', plot_mean), ('plot_std', plot_std), ('grid', grid)):
            _check.flag(who, name, value)
        if figsize is not None and not (
                isinstance(figsize, (tuple, list)) and len(figsize) == 2 and
                all(isinstance(v, numbers.Real) for v in figsize)):
            raise TypeError(f'{who}: figsize must be a pair of numbers (inches) or None; got '
                            f'{_validate.show(figsize)}')
        sigmas = _percentiles(percentile_sigmas)
        if not (plot_mean or plot_std or sigmas):
            raise ValueError(f'{who}: nothing to plot: plot_mean and plot_std are False and '
                             'percentile_sigmas is empty')
        self._keys = [key for key, wanted in (('data', report_data), ('grad', report_grad))
                      if wanted]
        if not self._keys:
            raise ValueError(f'{who}: nothing to plot: report_data and report_grad are both '
                             'False')
        self._vars = variables
        self._statistician = Statistician(plot_mean, plot_std, sigmas)
        self._plot_mean = bool(plot_mean)
        self._plot_std = bool(plot_std)
        self._plot_percentile = bool(sigmas)
        self._trigger = trigger_module.resolve(trigger, 'VariableStatisticsPlot', 'trigger')
        self._filename = filename
        self._figsize = figsize
        self._marker = marker
        self._grid = grid
        self._data_shape = (len(self._keys), int(plot_mean) + int(plot_std) + len(sigmas))
        self._samples = Reservoir(max_sample_size, self._data_shape)

    @staticmethod
    def available() -> bool:
        """Whether matplotlib is installed (warns when it is not)."""
        return _plotting.available('VariableStatisticsPlot')

    def __call__(self, trainer: Any) -> None:
        """Samples the statistics; saves the plot when the trigger fires."""
        if not _plotting.is_installed():
            return
        stats = numpy.zeros(self._data_shape, dtype=numpy.float32)
        for row, key in enumerate(self._keys):
            arrays = [var.array if key == 'data' else var.grad
                      for var in self._vars if var.array is not None]
            arrays = [array for array in arrays if array is not None]
            if arrays:
                stats[row] = self._statistics(arrays)
        self._samples.add(stats, idx=trainer.updater.iteration)
        if self._trigger(trainer):
            self._save_plot(os.path.join(trainer.out, self._filename))

    def _statistics(self, arrays: list[Any]) -> numpy.ndarray:
        xp = backend.get_array_module(arrays[0])
        values = xp.concatenate([array.ravel() for array in arrays])
        collected = self._statistician(values, axis=0, xp=xp)
        parts = [xp.atleast_1d(collected[name]) for name in ('mean', 'std', 'percentile')
                 if name in collected]
        row = xp.concatenate(parts).astype(xp.float32)
        return backend.get_device_from_array(row).to_numpy(row)

    def _save_plot(self, path: str) -> None:
        nrows = int(self._plot_mean or self._plot_std) + int(self._plot_percentile)
        figure = _plotting.new_figure(figsize=self._figsize)
        axes = figure.subplots(nrows, len(self._keys), sharex=True, squeeze=False)
        idxs, data = self._samples.get_data()
        for col, key in enumerate(self._keys):
            axes[0, col].set_title(key)
            row = 0
            if self._plot_mean or self._plot_std:
                self._plot_moments(axes[row, col], idxs, data[:, col])
                row += 1
            if self._plot_percentile:
                self._plot_percentiles(axes[row, col], idxs, data[:, col])
        for ax in axes.ravel():
            ax.legend()
            if self._grid:
                ax.grid(True)
                ax.set_axisbelow(True)
        _plotting.save_figure(figure, path)

    def _plot_moments(self, ax: Any, idxs: numpy.ndarray, stats: numpy.ndarray) -> None:
        if self._plot_mean and self._plot_std:
            ax.errorbar(idxs, stats[:, 0], stats[:, 1], color=_PLOT_COLOR,
                        ecolor=_ERROR_COLOR, label='mean, std', marker=self._marker)
        else:
            label = 'mean' if self._plot_mean else 'std'
            ax.plot(idxs, stats[:, 0], color=_PLOT_COLOR, label=label, marker=self._marker)

    def _plot_percentiles(self, ax: Any, idxs: numpy.ndarray, stats: numpy.ndarray) -> None:
        # Percentiles pair from the outside in (first with last, ...) into bands;
        # an odd middle one is drawn as a line.
        offset = int(self._plot_mean) + int(self._plot_std)
        percentiles = stats[:, offset:]
        count = percentiles.shape[1]
        bands = count // 2
        for i in range(bands):
            innermost = i == bands - 1 and count % 2 == 0
            ax.fill_between(idxs, percentiles[:, i], percentiles[:, count - 1 - i],
                            label='percentile' if innermost else '_nolegend_', **_FILL_STYLE)
        if count % 2 == 1:
            ax.plot(idxs, percentiles[:, bands], color=_PLOT_COLOR, label='percentile',
                    marker=self._marker)
        ax.set_xlabel('iteration')


__all__ = ['Reservoir', 'Statistician', 'VariableStatisticsPlot']
