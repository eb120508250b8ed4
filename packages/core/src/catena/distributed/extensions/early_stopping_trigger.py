"""``MultiNodeEarlyStoppingTrigger``: early stopping on a value averaged over all ranks."""

from __future__ import annotations

import math
import numbers
from typing import Any

from catena import serializer as serializer_module
from catena.distributed.communicators.base import CommunicatorBase
from catena.distributed.extensions.observation_aggregator import check_comm, make_trigger
from catena.training.triggers.early_stopping import EarlyStoppingTrigger
from catena.variable import Variable


class _CheckGate:
    """The inner trigger's check trigger: says whether this call checks; saves the real one."""

    def __init__(self, trigger: Any) -> None:
        self.trigger = trigger
        self.open = False

    def __call__(self, trainer: Any) -> bool:
        return self.open

    def serialize(self, serializer: Any) -> None:
        serialize_trigger = getattr(self.trigger, 'serialize', None)
        if serialize_trigger is not None:
            serialize_trigger(serializer)


class _TrainerView:
    """The trainer as the inner trigger sees it: the same but for ``observation``."""

    def __init__(self, trainer: Any, observation: dict[str, Any]) -> None:
        self._trainer = trainer
        self.observation = observation

    def __getattr__(self, name: str) -> Any:
        return getattr(self._trainer, name)


def _stored_number(serializer: Any, key: str, current: Any, kind: type) -> Any:
    if not isinstance(serializer, serializer_module.Deserializer):
        serializer(key, kind(current))
        return current
    stored = serializer(key, None)  # a dry run answers None: keep the value
    if stored is None:
        return current
    return kind(stored.item() if hasattr(stored, 'item') else stored)


class MultiNodeEarlyStoppingTrigger:
    """Stops training on every rank at once when a monitored value stops improving.

    It decides as :class:`~catena.training.triggers.EarlyStoppingTrigger`
    does (which it uses inside), on the value averaged over all ranks: at
    each call it adds this rank's ``trainer.observation[monitor]`` (when
    present) to a local sum; when ``check_trigger`` fires the ranks exchange
    their sums and counts (one collective call) and every rank computes,
    in the same order, the mean of all values observed by all ranks in the
    interval. That mean is what the single-process trigger compares with
    the best one so far, so every rank takes the same decision and no rank
    stops while others wait in a collective. ``max_trigger`` also stops
    every rank at the same iteration.

    The collective happens only at the calls where ``check_trigger`` fires,
    so the trigger must fire at the same iterations on every rank: use
    ``'iteration'`` units, or ``'epoch'`` units with per-rank datasets of
    equal length (:func:`~catena.distributed.scatter_dataset` makes them so
    by default). Use it as the trainer's stop trigger on every rank.

    ChainerMN computes the mean of the per-rank means of the interval; this
    one pools the values, which is the same when every rank observes the
    value equally often. It writes no aggregated key into the observation.
    If no rank observed ``monitor`` in an interval, the check is skipped
    with the warning of the single-process trigger.

    Args:
        comm: The communicator.
        check_trigger: When to check: a trigger or ``(period, unit)``.
        monitor: The observation key to watch.
        patience: How many checks without improvement to allow (default 3).
        mode: ``'max'``, ``'min'`` or ``'auto'`` (``'max'`` when ``monitor``
            contains ``'accuracy'``, ``'min'`` otherwise).
        verbose: Whether to print the comparison in use and when training
            stops (on rank 0 only).
        max_trigger: The longest training: anything
            :func:`~catena.training.get_trigger` accepts.
        min_delta: The least change of the mean over the best one that
            counts as an improvement (0: any change in the right direction).
        patients: An old alias of ``patience``; give only one of them.

    Attributes:
        comm: The communicator.
        early_stopping: The single-process trigger that takes the decision
            (its ``count`` and ``best`` are the same on every rank).
    """

    comm: CommunicatorBase
    monitor: str
    min_delta: float
    early_stopping: EarlyStoppingTrigger
    _gate: _CheckGate
    _maximize: bool
    _sum: Any
    _count: int

    def __init__(self, comm: CommunicatorBase, check_trigger: Any = (1, 'epoch'),
                 monitor: str = 'main/loss', patience: int | None = None, mode: str = 'auto',
                 verbose: bool = False, max_trigger: Any = (100, 'epoch'),
                 min_delta: float = 0, *, patients: int | None = None) -> None:
        self.comm = check_comm(comm)
        if not isinstance(monitor, str):
            raise TypeError(f'monitor must be a str, got {type(monitor).__name__}')
        if isinstance(min_delta, bool) or not isinstance(min_delta, numbers.Real) \
                or not min_delta >= 0 or math.isinf(min_delta):
            raise ValueError(f'min_delta must be a finite number >= 0, got {min_delta!r}')
        self.monitor = monitor
        self.min_delta = float(min_delta)
        self._gate = _CheckGate(make_trigger(check_trigger, 'check_trigger'))
        self.early_stopping = EarlyStoppingTrigger(
            check_trigger=self._gate, monitor=monitor, patience=patience, mode=mode,
            verbose=bool(verbose) and comm.rank == 0,
            max_trigger=make_trigger(max_trigger, 'max_trigger'), patients=patients)
        # The single-process trigger starts from the worst value of its direction.
        self._maximize = bool(self.early_stopping.best == -math.inf)
        self._sum: Any = 0.0
        self._count = 0

    def __call__(self, trainer: Any) -> bool:
        """Returns whether training should stop now (the same answer on every rank)."""
        observation = trainer.observation
        if self.monitor in observation:
            value = observation[self.monitor]
            # Summed where it lives; converted to a float (one sync) only at a check.
            self._sum = self._sum + (value.array if isinstance(value, Variable) else value)
            self._count += 1
        checking = bool(self._gate.trigger(trainer))
        seen: dict[str, Any] = {}
        if checking:
            totals = self.comm.allgather_obj((float(self._sum), self._count))
            self._sum, self._count = 0.0, 0
            count = sum(n for _, n in totals)
            if count:
                seen[self.monitor] = self._thresholded(sum(s for s, _ in totals) / count)
        self._gate.open = checking
        try:
            return bool(self.early_stopping(_TrainerView(trainer, seen)))
        finally:
            self._gate.open = False

    def _thresholded(self, value: float) -> float:
        # A change smaller than min_delta is handed over as the best value
        # itself, which the single-process trigger counts as no improvement.
        best = self.early_stopping.best
        if self.min_delta == 0 or math.isinf(best):
            return value
        improved = (value > best + self.min_delta if self._maximize
                    else value < best - self.min_delta)
        return value if improved else best

    def get_training_length(self) -> Any:
        """Returns the training length of ``max_trigger``."""
        return self.early_stopping.get_training_length()

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the state of the decision and the running local sum.

        The keys are those of
        :class:`~catena.training.triggers.EarlyStoppingTrigger`
        (``check_trigger``'s position under ``interval_trigger``) plus
        ``local_sum`` and ``local_count``, this rank's part of the current
        interval.
        """
        self.early_stopping.serialize(serializer)
        self._sum = _stored_number(serializer, 'local_sum', self._sum, float)
        self._count = _stored_number(serializer, 'local_count', self._count, int)


__all__ = ['MultiNodeEarlyStoppingTrigger']
