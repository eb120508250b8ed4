"""The extension that evaluates models on a validation set (:class:`Evaluator`)."""

from __future__ import annotations

import copy
import sys
import warnings
from collections.abc import Callable
from typing import Any, TextIO

from catena import backend, configuration, link as link_module, reporter as reporter_module
from catena._backprop import no_backprop_mode
from catena.dataset import convert
from catena.dataset.iterator import Iterator
from catena.training import extension
from catena.utils import _validate

_BAR_LENGTH = 30


def _named(who: str, value: Any, kind: type, what: str) -> dict[str, Any]:
    if isinstance(value, kind):
        return {'main': value}
    if not isinstance(value, dict):
        raise TypeError(f'{who}: {what} must be a {kind.__module__}.{kind.__name__} or a dict '
                        f'of them; got {_validate.show(value)}')
    for name, item in value.items():
        if not isinstance(item, kind):
            raise TypeError(f'{who}: {what}[{name!r}] must be a {kind.__module__}.'
                            f'{kind.__name__}; got {_validate.show(item)}')
    return dict(value)


class Evaluator(extension.Extension):
    """Evaluates the targets on a validation set and reports the mean of what they report.

    Each evaluation sweeps the main iterator once (after ``reset()``, or over
    a shallow copy for iterators without it), calling ``eval_func`` (the
    main target by default) on each converted batch with
    ``catena.config.train`` False and no graph built. What the targets
    report in a batch is collected in a
    :class:`~catena.reporter.DictSummary`; its means are reported to the
    trainer with the extension's name as a prefix, so a
    :class:`~catena.links.Classifier`'s ``loss`` becomes
    ``'validation/main/loss'``. The result is the mean over *batches*, not
    examples, as in Chainer.

    To change the evaluation loop, pass ``eval_func`` or override
    :meth:`evaluate` (a subclass then handles the iterator and the summary
    itself).

    Args:
        iterator: The iterator of validation batches, or a dict of them; a
            lone iterator is registered as ``'main'``. It must stop after one
            sweep (``repeat=False``).
        target: The link to evaluate, or a dict of links; a lone link is
            registered as ``'main'``.
        converter: Turns a batch into arrays on ``device``
            (:func:`catena.dataset.concat_examples` by default).
        device: The device the batches are sent to, or None.
        eval_hook: Called as ``eval_hook(evaluator)`` at the start of each
            evaluation (to reset a recurrent state, for instance).
        eval_func: Called with each converted batch instead of the main
            target.
        progress_bar: Show a one-line progress display on standard error
            during evaluation (only when it is a terminal).

    Attributes:
        converter: The converter.
        device: The device of the batches (a :class:`~catena.backend.Device`)
            or None.
        eval_hook: The evaluation hook, or None.
        eval_func: The evaluation function, or None.

    Raises:
        TypeError: ``iterator`` or ``target`` is of the wrong type.
    Warns:
        UserWarning: An iterator repeats forever; the default :meth:`evaluate`
            then raises ValueError instead of sweeping it without end.
    """

    trigger: Any = (1, 'epoch')
    default_name = 'validation'
    priority = extension.PRIORITY_WRITER
    name: str | None = None

    def __init__(self, iterator: Any, target: Any,
                 converter: Callable[..., Any] = convert.concat_examples, device: Any = None,
                 eval_hook: Callable[[Evaluator], Any] | None = None,
                 eval_func: Callable[..., Any] | None = None, *,
                 progress_bar: bool = False) -> None:
        who = type(self).__name__
        self._iterators = _named(who, iterator, Iterator, 'iterator')
        self._targets = _named(who, target, link_module.Link, 'target')
        _validate.function(who, 'converter', converter)
        _validate.function(who, 'eval_hook', eval_hook, optional=True)
        _validate.function(who, 'eval_func', eval_func, optional=True)
        self.converter = converter
        self.device = None if device is None else backend.get_device(device)
        self.eval_hook = eval_hook
        self.eval_func = eval_func
        self._progress_bar = bool(progress_bar)
        self._check_iterators_stop()

    def _check_iterators_stop(self) -> None:
        for name, iterator in self._iterators.items():
            if getattr(iterator, 'repeat', False):
                warnings.warn(f'the iterator {name!r} of the Evaluator has repeat=True; an '
                              'evaluation that sweeps it to its end never stops (the default '
                              'evaluate() refuses it)', UserWarning, stacklevel=3)

    def get_iterator(self, name: str) -> Any:
        """Returns the iterator registered as ``name``."""
        return self._iterators[name]

    def get_all_iterators(self) -> dict[str, Any]:
        """Returns a dict of all the iterators."""
        return dict(self._iterators)

    def get_target(self, name: str) -> Any:
        """Returns the target link registered as ``name``."""
        return self._targets[name]

    def get_all_targets(self) -> dict[str, Any]:
        """Returns a dict of all the target links."""
        return dict(self._targets)

    def __call__(self, trainer: Any = None) -> dict[str, Any]:  # type: ignore[override]
        """Evaluates and reports the result to the current reporter.

        It can be called without a trainer: the result then goes to whatever
        reporter is current (nowhere if none is).

        Args:
            trainer: The trainer calling the extension, or None.

        Returns:
            dict: The means of the values reported during evaluation, keyed
            with the extension's name as a prefix.
        """
        reporter = reporter_module.Reporter()
        prefix = '' if self.name is None else self.name + '/'
        for name, target in self._targets.items():
            reporter.add_observer(prefix + name, target)
            reporter.add_observers(prefix + name, target.namedlinks(skipself=True))
        with reporter, configuration.using_config('train', False):
            result = self.evaluate()
        reporter_module.report(result)
        return result

    def evaluate(self) -> dict[str, Any]:
        """Runs one sweep over the main iterator and returns the mean observations.

        Values must be reported to the current reporter (as :meth:`__call__`
        sets it up); each batch is evaluated in its own observation, inside
        :func:`~catena.no_backprop_mode` and with ``train`` False.

        Returns:
            dict: The mean of each reported scalar over the batches.

        Raises:
            ValueError: The main iterator repeats forever (``repeat=True``).
        """
        iterator = self._iterators['main']
        if getattr(iterator, 'repeat', False):
            raise ValueError(
                "the iterator 'main' of the Evaluator has repeat=True, so the evaluation "
                'would never end; create it with repeat=False (for example '
                'SerialIterator(dataset, batch_size, repeat=False, shuffle=False))')
        eval_func = self.eval_func or self._targets['main']
        if self.eval_hook:
            self.eval_hook(self)
        if hasattr(iterator, 'reset'):
            iterator.reset()
            sweep = iterator
        else:
            sweep = copy.copy(iterator)
        summary = reporter_module.DictSummary()
        progress = _EvaluationProgress(sweep) if self._progress_bar else None
        with configuration.using_config('train', False):
            for batch in sweep:
                observation: dict[str, Any] = {}
                with reporter_module.report_scope(observation):
                    in_arrays = convert._call_converter(self.converter, batch, self.device)
                    with no_backprop_mode():
                        if isinstance(in_arrays, tuple):
                            eval_func(*in_arrays)
                        elif isinstance(in_arrays, dict):
                            eval_func(**in_arrays)
                        else:
                            eval_func(in_arrays)
                summary.add(observation)
                if progress is not None:
                    progress.update()
        if progress is not None:
            progress.close()
        return summary.compute_mean()

    def finalize(self) -> None:
        """Finalizes the iterators (called when the training loop ends)."""
        for iterator in self._iterators.values():
            iterator.finalize()


class _EvaluationProgress:
    """A line on standard error, rewritten in place, showing how far the sweep is."""

    def __init__(self, iterator: Any, stream: TextIO | None = None) -> None:
        self._iterator = iterator
        self._stream = sys.stderr if stream is None else stream
        isatty = getattr(self._stream, 'isatty', None)
        self._enabled = bool(isatty is not None and isatty())
        self._batches = 0
        self._width = 0

    def update(self) -> None:
        self._batches += 1
        if not self._enabled:
            return
        line = f'validation: {self._batches} batches'
        detail = getattr(self._iterator, 'epoch_detail', None)
        if detail is not None:
            fraction = min(max(float(detail), 0.0), 1.0)
            marks = int(fraction * _BAR_LENGTH)
            line = (f'validation [{"#" * marks}{"." * (_BAR_LENGTH - marks)}] '
                    f'{fraction:6.1%}, {self._batches} batches')
        self._width = max(self._width, len(line))
        self._stream.write('\r' + line.ljust(self._width))
        self._stream.flush()

    def close(self) -> None:
        if self._enabled and self._width:
            self._stream.write('\r' + ' ' * self._width + '\r')
            self._stream.flush()


__all__ = ['Evaluator']
