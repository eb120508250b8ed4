"""The trigger that stops training when a monitored value stops improving."""

from __future__ import annotations

import operator
import warnings
from typing import Any

from catena import reporter
from catena.training import trigger as trigger_module
from catena.utils import _validate


class EarlyStoppingTrigger:
    """Fires (to stop training) when a monitored value has not improved for a while.

    Meant as a Trainer's stop trigger. At every call the value of
    ``monitor`` in ``trainer.observation`` is added to a summary; at each
    check (``check_trigger``) its mean over the interval is compared with the
    best mean so far. After ``patience`` checks in a row without improvement
    the trigger fires. It also fires when ``max_trigger`` does, which bounds
    the training length.

    Args:
        check_trigger: When to check: anything
            :func:`~catena.training.get_trigger` accepts.
        monitor: The observation key to watch.
        patience: How many checks without improvement to allow (default 3).
        mode: ``'max'`` (larger is better), ``'min'`` (smaller is better) or
            ``'auto'`` (``'max'`` when ``monitor`` contains ``'accuracy'``,
            ``'min'`` otherwise).
        verbose: Whether to print the comparison in use and when training
            stops.
        max_trigger: The longest training: anything ``get_trigger`` accepts.
        patients: An old alias of ``patience``; give only one of them.

    Attributes:
        count: The number of checks since the last improvement.
        best: The best mean so far.
    """

    def __init__(self, check_trigger: Any = (1, 'epoch'), monitor: str = 'main/loss',
                 patience: int | None = None, mode: str = 'auto', verbose: bool = False,
                 max_trigger: Any = (100, 'epoch'), *, patients: int | None = None) -> None:
        if patients is not None:
            if patience is not None:
                raise TypeError('EarlyStoppingTrigger: both patience and patients are given; '
                                'patients is an alias of patience: give only patience')
            patience = patients
        if patience is None:
            patience = 3
        patience = _validate.integer('EarlyStoppingTrigger', 'patience', patience, 0)
        if not isinstance(monitor, str):
            raise TypeError('EarlyStoppingTrigger: monitor must be an observation key (a str); '
                            f'got {_validate.show(monitor)}')
        if mode not in ('auto', 'max', 'min'):
            raise ValueError("EarlyStoppingTrigger: mode must be 'auto', 'max' or 'min'; "
                             f'got {_validate.show(mode)}')
        if mode == 'auto':
            mode = 'max' if 'accuracy' in monitor else 'min'
        self.patience = patience
        self.monitor = monitor
        self.verbose = verbose
        self.count = 0
        who = 'EarlyStoppingTrigger'
        self._max_trigger = trigger_module.resolve(max_trigger, who, 'max_trigger')
        self._interval_trigger = trigger_module.resolve(check_trigger, who, 'check_trigger')
        self._summary = reporter.DictSummary()
        if mode == 'max':
            self._compare = operator.gt
            self.best = float('-inf')
        else:
            self._compare = operator.lt
            self.best = float('inf')
        if verbose:
            print(f'early stopping: operator is {"greater" if mode == "max" else "less"}')

    def __call__(self, trainer: Any) -> bool:
        """Returns whether training should stop now."""
        observation = trainer.observation
        monitor = self.monitor
        if monitor in observation:
            self._summary.add({monitor: observation[monitor]})
        if self._max_trigger(trainer):
            return True
        if not self._interval_trigger(trainer):
            return False
        if monitor not in observation:
            warnings.warn(f'EarlyStoppingTrigger: {monitor!r} is not in the observation',
                          stacklevel=2)
            return False
        value = float(self._summary.compute_mean()[monitor])
        self._summary = reporter.DictSummary()
        if self._compare(value, self.best):
            self.best = value
            self.count = 0
        else:
            self.count += 1
        if self.count >= self.patience:
            if self.verbose:
                print(f'Epoch {trainer.updater.epoch}: early stopping')
            return True
        return False

    def get_training_length(self) -> Any:
        """Returns the training length of ``max_trigger``."""
        return self._max_trigger.get_training_length()

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the triggers, the running summary, ``count`` and ``best``.

        A snapshot without ``count`` and ``best`` (one Chainer wrote) leaves
        them as they are.
        """
        for name, trigger in (('max_trigger', self._max_trigger),
                              ('interval_trigger', self._interval_trigger)):
            serialize_trigger = getattr(trigger, 'serialize', None)
            if serialize_trigger is not None:
                serialize_trigger(serializer[name])
        self._summary.serialize(serializer['summary'])
        try:
            count = serializer('count', self.count)
            best = serializer('best', self.best)
        except KeyError:
            return
        if count is not None:
            self.count = int(count)
        if best is not None:
            self.best = float(best)
