"""``ObservationAggregator``: combine one observed value over all ranks (ChainerMN's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from catena import backend, serializer as serializer_module
from catena.distributed.communicators.base import CommunicatorBase
from catena.training import extension, trigger as trigger_module
from catena.variable import Variable

_CPU = backend.CpuDevice()


def check_comm(comm: Any) -> CommunicatorBase:
    """Returns ``comm`` when it is a communicator; raises TypeError otherwise."""
    if not isinstance(comm, CommunicatorBase):
        raise TypeError(f'comm must be a catena.distributed communicator, got '
                        f'{type(comm).__name__}')
    return comm


def make_trigger(trigger: Any, name: str) -> Any:
    """``get_trigger(trigger)``, with errors that name the argument."""
    try:
        return trigger_module.get_trigger(trigger)
    except (TypeError, ValueError) as error:
        raise ValueError(f'{name}: {error}') from None


def to_host(value: Any) -> Any:
    """A Variable's array, a device array as a NumPy array; other values as they are."""
    if isinstance(value, Variable):
        value = value.array
    if isinstance(value, backend.get_array_types()):
        return _CPU.send_array(value)
    return value


def mean_over_ranks(per_rank: list[list[Any]]) -> Any:
    """The default aggregator: the mean of every value of every rank (None if there is none).

    Arrays are averaged elementwise (they must share one shape); the ranks'
    values are pooled, so a rank that observed more values weighs more.
    """
    values = [numpy.asarray(value) for values in per_rank for value in values]
    if not values:
        return None
    shapes = {value.shape for value in values}
    if len(shapes) > 1:
        raise ValueError(f'ObservationAggregator: the observed values have different shapes '
                         f'{sorted(shapes)}; the default aggregator averages values of one '
                         f'shape (pass aggregator= for others)')
    return numpy.mean(numpy.stack(values), axis=0)


class ObservationAggregator(extension.Extension):
    """Reports the aggregate (by default the mean) of an observed value over all ranks.

    Each rank observes its own ``trainer.observation[original_key]`` (its
    own loss or accuracy). Called every iteration, this extension appends
    that value, when present, to a local history. When ``comm_trigger``
    fires it gathers every rank's history (a collective call), reduces the
    per-rank lists with ``aggregator`` and writes the result into
    ``trainer.observation[aggregated_key]``, where readers such as
    :class:`~catena.training.extensions.LogReport` see it; then the history
    starts over. Every rank gets the same result. If no rank observed the
    value since the last aggregation, nothing is written.

    Its priority is :data:`~catena.training.PRIORITY_EDITOR`: it runs after
    the updater and writers such as evaluators, before the readers. Every
    rank must call it at the same iterations and its ``comm_trigger`` must
    fire at the same iterations everywhere (an ``'epoch'`` trigger needs
    per-rank datasets of equal length, as
    :func:`~catena.distributed.scatter_dataset` makes them).

    With ``aggregated_key == original_key`` (the default) the aggregate
    replaces this rank's value in the observation of the iterations where
    ``comm_trigger`` fires; with a ``comm_trigger`` coarser than one
    iteration, give another ``aggregated_key`` so that a log does not mix
    local values and aggregates.

    :meth:`serialize` saves the history (as a host array of the stacked
    values, which must share one shape) and the trigger's position, so a
    resumed run aggregates what an uninterrupted one would.

    Args:
        comm: The communicator.
        original_key: The observation key to aggregate (``'main/loss'``).
        aggregated_key: The key to write the aggregate under (default:
            ``original_key``).
        comm_trigger: When to aggregate: a trigger or ``(period, unit)``.
            It is distinct from the extension's own trigger.
        aggregator: ``aggregator(per_rank) -> value`` where ``per_rank`` is
            the list (in rank order) of each rank's list of values since the
            last aggregation, as host values (NumPy arrays or Python
            scalars); some lists may be empty. It is called only when some
            rank has a value; returning None writes nothing. Default: the
            mean of all the values (:func:`mean_over_ranks`).
    """

    trigger: Any = (1, 'iteration')
    priority = extension.PRIORITY_EDITOR

    def __init__(self, comm: CommunicatorBase, original_key: str,
                 aggregated_key: str | None = None, *, comm_trigger: Any = (1, 'iteration'),
                 aggregator: Callable[[list[list[Any]]], Any] | None = None) -> None:
        self.comm = check_comm(comm)
        if not isinstance(original_key, str):
            raise TypeError(f'original_key must be a str, got {type(original_key).__name__}')
        if aggregated_key is None:
            aggregated_key = original_key
        elif not isinstance(aggregated_key, str):
            raise TypeError(f'aggregated_key must be a str or None, got '
                            f'{type(aggregated_key).__name__}')
        if aggregator is not None and not callable(aggregator):
            raise TypeError(f'aggregator must be callable or None, got '
                            f'{type(aggregator).__name__}')
        self.original_key = original_key
        self.aggregated_key = aggregated_key
        self.comm_trigger = make_trigger(comm_trigger, 'comm_trigger')
        self.aggregator = mean_over_ranks if aggregator is None else aggregator
        self.observation_history: list[Any] = []

    def __call__(self, trainer: Any) -> None:
        """Records the value; aggregates it over the ranks when ``comm_trigger`` fires."""
        observation = trainer.observation
        if self.original_key in observation:
            self.observation_history.append(observation[self.original_key])
        if not self.comm_trigger(trainer):
            return
        mine = [to_host(value) for value in self.observation_history]
        self.observation_history = []
        per_rank = self.comm.allgather_obj(mine)
        if not any(per_rank):
            return
        aggregated = self.aggregator(per_rank)
        if aggregated is not None:
            observation[self.aggregated_key] = aggregated

    def serialize(self, serializer: Any) -> None:
        """Saves or loads ``comm_trigger`` and the history (key ``observation_history``)."""
        serialize_trigger = getattr(self.comm_trigger, 'serialize', None)
        if serialize_trigger is not None:
            serialize_trigger(serializer['comm_trigger'])
        if not isinstance(serializer, serializer_module.Deserializer):
            serializer('observation_history', self._stacked_history())
            return
        # Asking with None returns the stored array whatever its shape (a dry
        # run answers None: keep the history).
        stored = serializer('observation_history', None)
        if stored is not None:
            self.observation_history = list(numpy.asarray(stored))

    def _stacked_history(self) -> numpy.ndarray:
        values = [numpy.asarray(to_host(value)) for value in self.observation_history]
        if not values:
            return numpy.zeros((0,))
        shapes = {value.shape for value in values}
        if len(shapes) > 1:
            raise ValueError(f'ObservationAggregator({self.original_key!r}) cannot save a '
                             f'history of values of different shapes {sorted(shapes)}')
        return numpy.stack(values)


__all__ = ['ObservationAggregator', 'mean_over_ranks']
