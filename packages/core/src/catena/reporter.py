"""Reporters collect observed values under observer names; summaries average them.

A :class:`Reporter` writes ``report(values, observer)`` calls into its current
*observation*, a dict from names to values. A value reported with an observer
is stored as ``'<observer name>/<key>'``: the Trainer registers its model as
``'main'``, so a :class:`~catena.links.Classifier` reporting ``'loss'`` lands
as ``'main/loss'``. Each thread has its own stack of current reporters; the
module-level :func:`report` writes to the top one and does nothing when the
stack is empty.
"""

from __future__ import annotations

import collections
import contextlib
import json
import numbers
import threading
import warnings
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy

from catena import backend, configuration
from catena.variable import Variable

_thread_state = threading.local()


def _reporter_stack() -> list[Reporter]:
    try:
        return _thread_state.reporters  # type: ignore[no-any-return]
    except AttributeError:
        stack: list[Reporter] = []
        _thread_state.reporters = stack
        return stack


def _detached(value: Any) -> Any:
    """A reported Variable, cut from its graph so the graph can be freed."""
    if isinstance(value, Variable):
        return Variable(value.array, name=value.name, requires_grad=value.requires_grad)
    return value


class Reporter:
    """Collects observed values into an observation dict.

    Observers (usually links) are registered under names; a value reported
    with an observer is stored as ``'<name>/<key>'``, a value reported
    without one under its bare key. A Variable is stored as a copy cut from
    its computational graph unless ``catena.config.keep_graph_on_report`` is
    true.

    Using the reporter in a ``with`` statement makes it the current reporter
    of the thread, the one :func:`report` writes to.

    Attributes:
        observation: The dict that reported values are written to.
    """

    def __init__(self) -> None:
        self._observer_names: dict[int, str] = {}
        self.observation: dict[str, Any] = {}

    def __enter__(self) -> Reporter:
        _reporter_stack().append(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        _reporter_stack().pop()

    @contextlib.contextmanager
    def scope(self, observation: dict[str, Any]) -> Iterator[None]:
        """Makes this reporter current and writes reports into ``observation``.

        The previous observation dict comes back when the block ends.

        Args:
            observation: The dict to write reported values into.
        """
        previous = self.observation
        self.observation = observation
        self.__enter__()
        try:
            yield
        finally:
            self.__exit__(None, None, None)
            self.observation = previous

    def add_observer(self, name: str, observer: Any) -> None:
        """Registers ``observer`` under ``name``.

        Args:
            name: The prefix of the values the observer reports.
            observer: Any object; it is recognized by identity.
        """
        if not isinstance(name, str):
            raise TypeError(f'name must be a str, got {type(name).__name__}')
        self._observer_names[id(observer)] = name

    def add_observers(self, prefix: str, observers: Iterable[tuple[str, Any]]) -> None:
        """Registers several observers, each as ``prefix + name``.

        Args:
            prefix: The common prefix, such as ``'main'``.
            observers: ``(name, observer)`` pairs, such as
                ``link.namedlinks(skipself=True)``.
        """
        if not isinstance(prefix, str):
            raise TypeError(f'prefix must be a str, got {type(prefix).__name__}')
        for name, observer in observers:
            self.add_observer(prefix + name, observer)

    def report(self, values: Mapping[str, Any], observer: Any = None) -> None:
        """Writes ``values`` into the current observation.

        Args:
            values: A dict from keys to observed values.
            observer: A registered observer whose name prefixes the keys, or
                None to store the keys as they are.

        Raises:
            KeyError: ``observer`` is not registered to this reporter.
        """
        if not configuration.config.keep_graph_on_report:
            values = {key: _detached(value) for key, value in values.items()}
        if observer is None:
            self.observation.update(values)
            return
        try:
            prefix = self._observer_names[id(observer)]
        except KeyError:
            raise KeyError(
                f'the observer (a {type(observer).__name__}) is not registered to the reporter; '
                'register it first with add_observer(name, observer)') from None
        observation = self.observation
        for key, value in values.items():
            observation[f'{prefix}/{key}'] = value


def get_current_reporter() -> Reporter:
    """Returns the current reporter of this thread.

    Raises:
        IndexError: No reporter is current (outside any ``with reporter:``).
    """
    stack = _reporter_stack()
    if not stack:
        raise IndexError('no reporter is current in this thread; enter one with '
                         '`with reporter:` or `with reporter.scope(observation):`')
    return stack[-1]


def report(values: Mapping[str, Any], observer: Any = None) -> None:
    """Reports ``values`` to the current reporter; does nothing without one.

    Args:
        values: A dict from keys to observed values.
        observer: A registered observer whose name prefixes the keys, or None.
    """
    stack = _reporter_stack()
    if stack:
        stack[-1].report(values, observer)


@contextlib.contextmanager
def report_scope(observation: dict[str, Any]) -> Iterator[None]:
    """Redirects the current reporter's reports into ``observation`` for a block.

    Args:
        observation: The dict to write reported values into.

    Raises:
        IndexError: No reporter is current.
    """
    with get_current_reporter().scope(observation):
        yield


def _unwrap(value: Any) -> Any:
    return value.array if isinstance(value, Variable) else value


def _is_host_value(value: Any) -> bool:
    return isinstance(value, (numbers.Number, numpy.ndarray, numpy.generic))


def _is_numeric_scalar(value: Any) -> bool:
    """True for numbers and zero-dimensional numeric arrays (on any device)."""
    if isinstance(value, (numbers.Number, numpy.number, numpy.bool_)):
        return True
    if getattr(value, 'ndim', None) != 0:
        return False
    kind = getattr(getattr(value, 'dtype', None), 'kind', None)
    return kind in ('b', 'i', 'u', 'f', 'c')


class Summary:
    """Online mean and standard deviation of a sequence of scalars.

    Values may be Python numbers, NumPy scalars, zero-dimensional arrays of
    any device, or Variables holding one; the sums stay on the values' device.
    """

    def __init__(self) -> None:
        self._x: Any = 0.0
        self._x2: Any = 0.0
        self._n: Any = 0

    def add(self, value: Any, weight: Any = 1) -> None:
        """Adds a scalar value.

        Args:
            value: A scalar or zero-dimensional array (or a Variable of one).
            weight: The weight of the value (a scalar or zero-dimensional
                array).
        """
        value = _unwrap(value)
        # A Variable weight stays one (as in Chainer): the sums, and the
        # mean, become Variables.
        if not isinstance(weight, Variable):
            weight = _unwrap(weight)
        if _is_host_value(value):
            self._accumulate(value, weight)
        else:
            with backend.using_device(backend.get_device_from_array(value)):
                self._accumulate(value, weight)

    def _accumulate(self, value: Any, weight: Any) -> None:
        weighted = weight * value
        self._x += weighted
        self._x2 += weighted * value
        self._n += weight

    def _check_not_empty(self) -> None:
        if isinstance(self._n, numbers.Number) and self._n == 0:
            raise ZeroDivisionError('the summary is empty: add a value before computing it')

    def compute_mean(self) -> Any:
        """Returns the weighted mean of the values added so far.

        Raises:
            ZeroDivisionError: Nothing was added.
        """
        self._check_not_empty()
        if _is_host_value(self._x):
            return self._x / self._n
        with backend.using_device(backend.get_device_from_array(self._x)):
            return self._x / self._n

    def make_statistics(self) -> tuple[Any, Any]:
        """Returns the weighted mean and standard deviation of the values.

        Returns:
            tuple: ``(mean, std)``.

        Raises:
            ZeroDivisionError: Nothing was added.
        """
        self._check_not_empty()
        if _is_host_value(self._x):
            return self._statistics()
        with backend.using_device(backend.get_device_from_array(self._x)):
            return self._statistics()

    def _statistics(self) -> tuple[Any, Any]:
        xp = backend.get_array_module(self._x)
        mean = self._x / self._n
        # Rounding can make E[x^2] - E[x]^2 slightly negative for constant data.
        variance = xp.maximum(self._x2 / self._n - mean * mean, 0)
        return mean, xp.sqrt(variance)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the sums under the keys ``_x``, ``_x2`` and ``_n``.

        A deserializer that lacks the keys leaves the summary as it was (with
        a warning).
        """
        try:
            x = serializer('_x', self._x)
            x2 = serializer('_x2', self._x2)
            n = serializer('_n', self._n)
        except KeyError:
            warnings.warn('the serializer holds no statistics of this Summary (_x, _x2, _n); '
                          'it keeps its current ones', stacklevel=2)
            return
        # A deserializer that loads in place may return None.
        if x is not None:
            self._x = x
        if x2 is not None:
            self._x2 = x2
        if n is not None:
            self._n = n


def _as_text(value: Any) -> str:
    if isinstance(value, numpy.ndarray):
        value = value.item()
    if isinstance(value, bytes):
        return value.decode('utf-8')
    return str(value)


class DictSummary:
    """Online mean and standard deviation of a sequence of dicts of scalars.

    Each key is summarized on its own by a :class:`Summary`.
    """

    def __init__(self) -> None:
        self._summaries: collections.defaultdict[str, Summary] = collections.defaultdict(Summary)

    def add(self, d: Mapping[str, Any]) -> None:
        """Adds the scalars of a dict.

        Only numbers, zero-dimensional numeric arrays and Variables holding
        one are summarized; other values (arrays with dimensions, strings,
        None, ...) are skipped. A value given as a ``(value, weight)`` tuple is
        added with that weight.

        Args:
            d: A dict from keys to values.

        Raises:
            ValueError: A weight is not a scalar.
        """
        summaries = self._summaries
        for key, value in d.items():
            weight: Any = 1
            if isinstance(value, tuple):
                if len(value) != 2:
                    raise ValueError(f'the value of {key!r} must be a (value, weight) pair when '
                                     f'it is a tuple, got a tuple of {len(value)} items')
                value, weight = value
                weight = _unwrap(weight)
                if not _is_numeric_scalar(weight):
                    raise ValueError(f'the weight given to {key!r} must be a scalar, got '
                                     f'{type(weight).__name__} with shape '
                                     f'{getattr(weight, "shape", None)}')
            value = _unwrap(value)
            if _is_numeric_scalar(value):
                summaries[key].add(value, weight=weight)

    def compute_mean(self) -> dict[str, Any]:
        """Returns a dict from each key to the mean of its values."""
        return {name: summary.compute_mean() for name, summary in self._summaries.items()}

    def make_statistics(self) -> dict[str, Any]:
        """Returns each key's mean under the key and its std under ``'<key>.std'``."""
        statistics: dict[str, Any] = {}
        for name, summary in self._summaries.items():
            mean, std = summary.make_statistics()
            statistics[name] = mean
            statistics[name + '.std'] = std
        return statistics

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the summaries.

        The keys are stored as JSON under ``_names`` and the i-th summary
        under ``_summaries/<i>``, as Chainer does.
        """
        names = list(self._summaries)
        try:
            stored = serializer('_names', json.dumps(names))
        except KeyError:
            warnings.warn('the serializer holds no names of the statistics of this '
                          'DictSummary (_names); it starts empty', stacklevel=2)
            self._summaries.clear()
            return
        if stored is not None:
            names = json.loads(_as_text(stored))
        summaries: collections.defaultdict[str, Summary] = collections.defaultdict(Summary)
        for index, name in enumerate(names):
            summary = self._summaries.get(name)
            if summary is None:
                summary = Summary()
            summary.serialize(serializer['_summaries'][str(index)])
            summaries[name] = summary
        self._summaries = summaries


__all__ = ['DictSummary', 'Reporter', 'Summary', 'get_current_reporter', 'report',
           'report_scope']
