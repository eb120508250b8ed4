"""The training loop (:class:`Trainer`): an updater plus scheduled extensions."""

from __future__ import annotations

import inspect
import os
import sys
import time
import traceback
from collections import OrderedDict
from typing import Any

from catena import reporter as reporter_module, serializer as serializer_module
from catena.training import extension as extension_module, trigger as trigger_module
from catena.utils import _validate


class _ExtensionEntry:
    def __init__(self, extension: Any, priority: int, trigger: Any,
                 call_before_training: bool) -> None:
        self.extension = extension
        self.trigger = trigger
        self.priority = priority
        self.call_before_training = call_before_training


def _finalize(extension: Any, trainer: Trainer) -> None:
    finalize = getattr(extension, 'finalize', None)
    if finalize is None:
        return
    try:
        takes_trainer = bool(inspect.signature(finalize).parameters)
    except (TypeError, ValueError):
        takes_trainer = False
    if takes_trainer:
        finalize(trainer)
    else:
        finalize()


class Trainer:
    """Runs an updater until a stop trigger fires, calling extensions on their triggers.

    Each iteration opens a fresh observation, makes the trainer's reporter
    current (so links' ``report`` calls land in it, the main model's under
    ``main/``), runs ``updater.update()``, then every extension whose
    trigger fires, in order of priority.

    Args:
        updater: The updater (for example
            :class:`~catena.training.updaters.StandardUpdater`).
        stop_trigger: When to stop: a trigger, ``(period, unit)``, or None
            to run forever.
        out: The folder for the extensions' outputs (logs, snapshots).
        extensions: Extensions to add with :meth:`extend` right away.

    Attributes:
        updater: The updater.
        stop_trigger: The stop trigger.
        out (str): The output folder.
        observation (dict): The values reported in the current iteration.
        reporter (~catena.reporter.Reporter): The reporter of the loop.
    """

    def __init__(self, updater: Any, stop_trigger: Any = None, out: str = 'result',
                 extensions: list[Any] | None = None) -> None:
        _check_updater(updater)
        if not isinstance(out, (str, os.PathLike)):
            raise TypeError(f'Trainer: out must be a path (a str); got {_validate.show(out)}')
        self.updater = updater
        self.stop_trigger = trigger_module.resolve(stop_trigger, 'Trainer', 'stop_trigger')
        self.observation: dict[str, Any] = {}
        self.out = out
        reporter = reporter_module.Reporter()
        for name, optimizer in updater.get_all_optimizers().items():
            reporter.add_observer(name, optimizer.target)
            reporter.add_observers(name, optimizer.target.namedlinks(skipself=True))
        self.reporter = reporter
        self._done = False
        self._extensions: OrderedDict[str, _ExtensionEntry] = OrderedDict()
        self._start_at: float | None = None
        self._snapshot_elapsed_time = 0.0
        self._final_elapsed_time: float | None = None
        updater.connect_trainer(self)
        for extension in extensions or ():
            self.extend(extension)

    @property
    def is_before_training(self) -> bool:
        """Whether no update has run yet."""
        return bool(self.updater.iteration == 0)

    @property
    def elapsed_time(self) -> float:
        """Seconds of training so far, including the time before a resumed snapshot."""
        if self._done:
            final = self._final_elapsed_time
            # A trainer marked done without a run has trained for no time here.
            return self._snapshot_elapsed_time if final is None else final
        if self._start_at is None:
            raise RuntimeError('the training has not started yet (call run())')
        return time.perf_counter() - self._start_at + self._snapshot_elapsed_time

    def extend(self, extension: Any, name: str | None = None, trigger: Any = None,
               priority: int | None = None, *, call_before_training: bool = False) -> None:
        """Registers an extension.

        Args:
            extension: The extension (an :class:`~catena.training.Extension`
                or any callable taking the trainer).
            name: Its name; by default its ``name``, ``default_name`` or
                ``__name__``. A taken name gets a suffix ``_1``, ``_2``, ...
            trigger: When to call it; by default its ``trigger`` attribute,
                else every iteration.
            priority: Its priority; by default its ``priority`` attribute,
                else :data:`~catena.training.PRIORITY_READER`.
            call_before_training: Also call it once before the first update.
        """
        if not callable(extension):
            raise TypeError(f'extension must be callable, got {type(extension).__name__}')
        if name is None:
            name = (getattr(extension, 'name', None) or
                    getattr(extension, 'default_name', None) or
                    getattr(extension, '__name__', None))
        if not name:
            raise TypeError(f'the extension {extension!r} has no name: pass name=')
        if name == 'training':
            raise ValueError('"training" cannot be the name of an extension')
        if trigger is None:
            trigger = getattr(extension, 'trigger', None) or (1, 'iteration')
        trigger = trigger_module.resolve(trigger, 'Trainer.extend', 'trigger')
        if priority is None:
            priority = getattr(extension, 'priority', extension_module.PRIORITY_READER)
        unique, ordinal = name, 0
        while unique in self._extensions:
            ordinal += 1
            unique = f'{name}_{ordinal}'
        extension.name = unique
        self._extensions[unique] = _ExtensionEntry(extension, int(priority), trigger,
                                                   call_before_training)

    def get_extension(self, name: str) -> Any:
        """Returns the extension registered as ``name``."""
        entry = self._extensions.get(name)
        if entry is None:
            raise ValueError(f'no extension named {name!r}; the trainer has '
                             f'{list(self._extensions)}')
        return entry.extension

    def run(self, show_loop_exception_msg: bool = True) -> None:
        """Runs the training loop until the stop trigger fires.

        Args:
            show_loop_exception_msg: Whether to print the traceback of an
                exception raised in the loop before the extensions finalize.
        """
        if self._done:
            raise RuntimeError('a Trainer runs only once; create a new one to train again')
        os.makedirs(self.out, exist_ok=True)
        entries = sorted(self._extensions.values(), key=lambda e: e.priority, reverse=True)
        self._start_at = time.perf_counter()
        # Snapshots that autoload restore the state the other extensions start from.
        for entry in sorted(entries, key=lambda e: not getattr(e.extension, 'autoload', False)):
            initialize = getattr(entry.extension, 'initialize', None)
            if initialize is not None and not getattr(entry.trigger, 'finished', False):
                initialize(self)

        reporter = self.reporter
        self.observation = {}
        with reporter.scope(self.observation):
            for entry in entries:
                if entry.call_before_training:
                    entry.extension(self)
        update = self.updater.update
        stop_trigger = self.stop_trigger
        try:
            while not stop_trigger(self):
                observation: dict[str, Any] = {}
                self.observation = observation
                with reporter.scope(observation):
                    update()
                    for entry in entries:
                        if entry.trigger(self):
                            entry.extension(self)
        except Exception as error:
            if show_loop_exception_msg:
                print(f'Exception in the training loop: {error}\n'
                      f'{traceback.format_exc()}'
                      'The extensions and the updater are finalized before the exception '
                      'is raised again.', file=sys.stderr)
            tb = sys.exc_info()[2]
            for entry in entries:
                on_error = getattr(entry.extension, 'on_error', None)
                if on_error is None:
                    continue
                try:
                    on_error(self, error, tb)
                except Exception as handler_error:
                    print(f'on_error of the extension {entry.extension.name!r} raised '
                          f'{handler_error!r}', file=sys.stderr)
            raise
        finally:
            for entry in entries:
                _finalize(entry.extension, self)
            self.updater.finalize()
        self._final_elapsed_time = self.elapsed_time
        self._done = True

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the updater, stop trigger, extensions and elapsed time.

        The keys are Chainer's: ``updater/...``, ``stop_trigger/...``,
        ``extensions/<name>/...``, ``extension_triggers/<name>/...`` and
        ``_snapshot_elapsed_time``.
        """
        self.updater.serialize(serializer['updater'])
        if hasattr(self.stop_trigger, 'serialize'):
            self.stop_trigger.serialize(serializer['stop_trigger'])
        extensions = serializer['extensions']
        triggers = serializer['extension_triggers']
        for name, entry in self._extensions.items():
            if hasattr(entry.extension, 'serialize'):
                entry.extension.serialize(extensions[name])
            if hasattr(entry.trigger, 'serialize'):
                entry.trigger.serialize(triggers[name])
        if isinstance(serializer, serializer_module.Serializer):
            serializer('_snapshot_elapsed_time',
                       self.elapsed_time if self._start_at is not None or self._done
                       else self._snapshot_elapsed_time)
        else:
            self._snapshot_elapsed_time = float(
                serializer('_snapshot_elapsed_time', self._snapshot_elapsed_time))


def _check_updater(updater: Any) -> None:
    missing = [name for name in ('update', 'get_all_optimizers', 'connect_trainer')
               if not callable(getattr(updater, name, None))]
    if missing:
        raise TypeError(f'Trainer: updater must be an updater (an object with update(), '
                        f'get_all_optimizers() and connect_trainer(), such as a StandardUpdater); '
                        f'got {_validate.show(updater)}, which lacks {", ".join(missing)}')
