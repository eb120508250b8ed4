"""The extension that reports statistics of parameters and gradients."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy

from catena import backend, link as link_module, reporter as reporter_module
from catena.training import extension, trigger as trigger_module
from catena.utils import _validate

# The percentiles of the normal distribution at -3, -2, -1, 0, 1, 2, 3 sigma.
_SIGMA_PERCENTILES = (0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87)


def _mean(x: Any) -> Any:
    return backend.get_array_module(x).mean(x)


def _std(x: Any) -> Any:
    return backend.get_array_module(x).std(x)


def _min(x: Any) -> Any:
    return backend.get_array_module(x).min(x)


def _max(x: Any) -> Any:
    return backend.get_array_module(x).max(x)


def _zeros(x: Any) -> Any:
    return backend.get_array_module(x).count_nonzero(x == 0)


def _percentile(x: Any) -> Any:
    return backend.get_array_module(x).percentile(x, _SIGMA_PERCENTILES)


Statistic = Callable[[Any], Any]


class ParameterStatistics(extension.Extension):
    """Reports statistics of the parameters and gradients of links.

    The extension runs every iteration (its default trigger): each call
    computes every statistic of every parameter's data and gradient,
    flattened to one dimension, and adds them to a summary; when ``trigger``
    fires, the means over the interval are reported and the summary starts
    over.

    Keys follow ``'{prefix}/{link name}{param name}/{data|grad}/{statistic}'``,
    for example ``'predictor/W/data/mean'`` for the child link
    ``model.predictor``. As in Chainer, the link name is the link's
    :attr:`~catena.Link.name`, which is None (written ``'None'``) for a
    root link: a :class:`~catena.links.Classifier` itself gives
    ``'None/predictor/W/data/mean'``. A statistic that returns several
    values gets one key per value, suffixed ``/0``, ``/1``, ...

    The default statistics are ``mean``, ``std``, ``min``, ``max``,
    ``zeros`` (the number of zero elements) and ``percentile``: the
    percentiles at the normal distribution's -3 to +3 sigma, 0.13, 2.28,
    15.87, 50, 84.13, 97.72 and 99.87 (keys ``.../percentile/0`` to
    ``.../percentile/6``).

    Args:
        links: A link or a list or tuple of links.
        statistics: A dict from names to functions that take a
            one-dimensional array (NumPy or CuPy) and return a scalar or an
            array of values; ``'default'`` for the statistics above; None for
            none (add some with :meth:`register_statistics`).
        report_params: Whether to report statistics of the parameters' data.
        report_grads: Whether to report statistics of their gradients.
        prefix: A prefix of the keys, or None.
        trigger: When to report the means and reset: a trigger or
            ``(period, unit)``, distinct from the extension's own trigger.
        skip_nan_params: Report a single NaN for every statistic of an array
            holding a NaN instead of computing the statistics.

    Attributes:
        default_statistics (dict): The statistics ``'default'`` stands for.
    """

    default_name = 'parameter_statistics'
    priority = extension.PRIORITY_WRITER

    # The prefix ends with '/' when given; parameter names start with '/'.
    report_key_template = '{prefix}{link_name}{param_name}/{attr_name}/{function_name}'

    default_statistics: dict[str, Statistic] = {
        'mean': _mean,
        'std': _std,
        'min': _min,
        'max': _max,
        'zeros': _zeros,
        'percentile': _percentile,
    }

    def __init__(self, links: Any, statistics: Mapping[str, Statistic] | str | None = 'default',
                 report_params: bool = True, report_grads: bool = True,
                 prefix: str | None = None, trigger: Any = (1, 'epoch'),
                 skip_nan_params: bool = False) -> None:
        if not isinstance(links, (list, tuple)):
            links = (links,)
        for index, link in enumerate(links):
            if not isinstance(link, link_module.Link):
                raise TypeError('ParameterStatistics: links must be a catena.Link or a list of '
                                f'them; item {index} is a {type(link).__name__}: got '
                                f'{_validate.show(link)}')
        self._links: tuple[Any, ...] = tuple(links)
        if statistics is None:
            statistics = {}
        elif isinstance(statistics, str):
            if statistics != 'default':
                raise ValueError("ParameterStatistics: statistics must be a dict of functions, "
                                 f"None or 'default'; got {statistics!r}")
            statistics = self.default_statistics
        elif not isinstance(statistics, Mapping):
            raise TypeError("ParameterStatistics: statistics must be a dict of functions, None or "
                            f"'default'; got {_validate.show(statistics)}")
        self._statistics: dict[str, Statistic] = dict(statistics)
        self._attrs = [attr for attr, wanted in (('data', report_params), ('grad', report_grads))
                       if wanted]
        if prefix is not None and not isinstance(prefix, str):
            raise TypeError('ParameterStatistics: prefix must be a str or None; got '
                            f'{_validate.show(prefix)}')
        self._prefix = prefix
        self._trigger = trigger_module.resolve(trigger, 'ParameterStatistics', 'trigger')
        self._summary = reporter_module.DictSummary()
        self._skip_nan_params = bool(skip_nan_params)

    def __call__(self, trainer: Any) -> None:
        """Adds the current statistics to the summary; reports the means when due."""
        self._summary.add(self._collect())
        if self._trigger(trainer):
            reporter_module.report(self._summary.compute_mean())
            self._summary = reporter_module.DictSummary()

    def _collect(self) -> dict[str, Any]:
        statistics: dict[str, Any] = {}
        prefix = self._prefix + '/' if self._prefix else ''
        array_types: Any = backend.get_array_types()
        for link in self._links:
            link_name = getattr(link, 'name', 'None')
            for param_name, param in link.namedparams():
                for attr_name in self._attrs:
                    array = getattr(param, attr_name)
                    if array is None:  # not initialized yet, or no gradient yet
                        continue
                    values = array.ravel()
                    has_nan = (self._skip_nan_params
                               and bool(backend.get_array_module(values).isnan(values).any()))
                    for function_name, function in self._statistics.items():
                        value: Any = numpy.nan if has_nan else function(values)
                        key = self.report_key_template.format(
                            prefix=prefix, link_name=link_name, param_name=param_name,
                            attr_name=attr_name, function_name=function_name)
                        if isinstance(value, array_types) and value.size > 1:
                            for index, item in enumerate(value):
                                statistics[f'{key}/{index}'] = item
                        else:
                            statistics[key] = value
        return statistics

    def register_statistics(self, name: str, function: Statistic) -> None:
        """Adds (or replaces) a statistic.

        Args:
            name: The statistic's name, used in the keys.
            function: A function that takes a one-dimensional array and
                returns a scalar or an array of values.
        """
        if not callable(function):
            raise TypeError(f'the statistic {name!r} must be callable, got '
                            f'{type(function).__name__}')
        self._statistics[name] = function

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the trigger (``trigger``) and the summary of the interval (``_summary``).

        Chainer saves neither; a Chainer snapshot lacks these keys, and
        loading it restarts the interval (with warnings).
        """
        if hasattr(self._trigger, 'serialize'):
            self._trigger.serialize(serializer['trigger'])
        self._summary.serialize(serializer['_summary'])


__all__ = ['ParameterStatistics']
