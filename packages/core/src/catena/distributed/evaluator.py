"""Evaluation over the shards of all ranks.

:func:`create_multi_node_evaluator` turns an ordinary
:class:`~catena.training.extensions.Evaluator` into one whose result is the
mean over the ranks; :class:`GenericMultiNodeEvaluator` collects arbitrary
per-batch results on one rank for an aggregation of the user's choice.
"""

from __future__ import annotations

import copy
import types
from collections.abc import Callable
from typing import Any

import numpy

from catena import backend, configuration
from catena._backprop import no_backprop_mode
from catena.dataset import convert
from catena.distributed.communicators.base import CommunicatorBase
from catena.training import extension
from catena.variable import Variable


def _check_communicator(communicator: Any) -> CommunicatorBase:
    if not isinstance(communicator, CommunicatorBase):
        raise TypeError(f'communicator must be a catena.distributed communicator, got '
                        f'{type(communicator).__name__}')
    return communicator


def _to_host(value: Any) -> Any:
    """A reported value as a NumPy value (Variables and device arrays move to the host)."""
    if isinstance(value, Variable):
        value = value.array
    if hasattr(value, 'shape') and not isinstance(value, (numpy.ndarray, numpy.generic)):
        value = backend.get_device_from_array(value).to_numpy(value)
    return value


def mean_over_ranks(observation: dict[str, Any], comm: CommunicatorBase) -> dict[str, Any]:
    """Returns the mean over all ranks of each value of ``observation`` (collective).

    Every rank must report the same keys; the values are moved to the host
    and the means are NumPy values (or Python numbers), the same on every
    rank.

    Raises:
        ValueError: When the ranks reported different keys (on every rank).
    """
    local = {key: _to_host(value) for key, value in observation.items()}
    everyone = comm.allgather_obj(local)
    keys = sorted(local)
    for rank, other in enumerate(everyone):
        if sorted(other) != keys:
            missing = sorted(set(keys) - set(other))
            extra = sorted(set(other) - set(keys))
            raise ValueError(
                f'the ranks evaluated different keys: rank {rank} lacks {missing} and has '
                f'{extra} more than rank {comm.rank}; every rank must report the same values')
    result = {}
    for key in keys:
        total = everyone[0][key]
        for other in everyone[1:]:
            total = total + other[key]
        result[key] = total / len(everyone)
    return result


def create_multi_node_evaluator(actual_evaluator: Any, communicator: CommunicatorBase) -> Any:
    """Makes an evaluator report the mean over all ranks of what each rank evaluates.

    Each rank evaluates its own shard of the validation set (for example
    from :func:`~catena.distributed.scatter_dataset`); the evaluator's
    ``evaluate`` then averages the result dictionaries over the ranks (each
    rank's means weigh the same, whatever its number of batches), so every
    rank reports the global result. The evaluator is patched in place: its
    ``evaluate`` becomes a collective call, and it no longer works without
    the other ranks.

    Args:
        actual_evaluator: The evaluator to patch (for example a
            :class:`~catena.training.extensions.Evaluator`).
        communicator: The communicator.

    Returns:
        ``actual_evaluator``, patched.
    """
    comm = _check_communicator(communicator)
    if not callable(getattr(actual_evaluator, 'evaluate', None)):
        raise TypeError(f'actual_evaluator must have an evaluate() method (an Evaluator), got '
                        f'{type(actual_evaluator).__name__}')
    original = actual_evaluator.evaluate

    def evaluate(self: Any) -> dict[str, Any]:
        return mean_over_ranks(original(), comm)

    actual_evaluator._mn_original_evaluate = original
    actual_evaluator._mn_communicator = comm
    actual_evaluator.evaluate = types.MethodType(evaluate, actual_evaluator)
    return actual_evaluator


class GenericMultiNodeEvaluator(extension.Extension):
    """Evaluation whose per-batch results are gathered on one rank and aggregated there.

    For evaluations that a mean of means cannot express (a metric over the
    whole validation set, shards of different sizes): every rank runs
    :meth:`calc_local` on each batch of its iterator, the results of all
    ranks are gathered on ``root``, which calls :meth:`aggregate` once with
    all of them. Subclass it and override the two methods; by default
    ``calc_local`` returns the target's output and ``aggregate`` returns
    the list of results. Nothing is reported automatically: report in
    ``aggregate`` (on the root). The shards may have different numbers of
    batches.

    Calling the extension is a collective call. It returns what
    ``aggregate`` returned on the root, and None on the other ranks.

    Args:
        comm: The communicator.
        iterator: This rank's iterator over its part of the validation set;
            it must stop (``repeat=False``).
        target: The callable (a model) to evaluate.
        device: The device the converter sends batches to, or None.
        converter: Turns a batch into the arguments of :meth:`calc_local`
            (:func:`catena.dataset.concat_examples` by default).
        root: The rank that aggregates.
        progress_hook: Called on the root only, as ``progress_hook(batch)``
            after each of the root's own batches is evaluated (as in
            ChainerMN).
    """

    trigger: Any = (1, 'epoch')
    default_name = 'validation'
    priority = extension.PRIORITY_WRITER
    name: str | None = None

    def __init__(self, comm: CommunicatorBase, iterator: Any, target: Any, device: Any = None,
                 converter: Callable[..., Any] = convert.concat_examples, root: int = 0, *,
                 progress_hook: Callable[[int], Any] | None = None) -> None:
        self.comm = _check_communicator(comm)
        if isinstance(root, bool) or not isinstance(root, int) or not 0 <= root < comm.size:
            raise ValueError(f'root must be a rank in [0, {comm.size}), got {root!r}')
        if getattr(iterator, 'repeat', False):
            raise ValueError('the iterator of GenericMultiNodeEvaluator has repeat=True, so the '
                             'evaluation would never end; create it with repeat=False')
        if not callable(target):
            raise TypeError(f'target must be callable, got {type(target).__name__}')
        self.iterator = iterator
        self._targets = {'main': target}
        self.device = None if device is None else backend.get_device(device)
        self.converter = converter
        self.root = root
        self.progress_hook = progress_hook

    def get_target(self, name: str = 'main') -> Any:
        """Returns the target registered as ``name``."""
        return self._targets[name]

    def calc_local(self, *args: Any, **kwargs: Any) -> Any:
        """Computes the result of one batch on this rank (override it).

        Args:
            args: The converted batch, when the converter returns a tuple
                (or a single value).
            kwargs: The converted batch, when the converter returns a dict.

        Returns:
            Any picklable value but None (the default: the target's output).
        """
        return self._targets['main'](*args, **kwargs)

    def aggregate(self, results: list[Any]) -> Any:
        """Combines the results of all ranks, on the root only (override it).

        Args:
            results: What :meth:`calc_local` returned for every batch of
                every rank, in ChainerMN's order: the first batch of rank 0,
                of rank 1, and so on, then the second batch of each rank,
                and so on (a rank whose batches ran out is left out of the
                later rounds).

        Returns:
            The evaluation's result (the default: ``results`` itself).
        """
        return results

    def _local_results(self) -> list[Any]:
        iterator = self.iterator
        if hasattr(iterator, 'reset'):
            iterator.reset()
        else:
            iterator = copy.copy(iterator)
        results = []
        with configuration.using_config('train', False), no_backprop_mode():
            for batch in iterator:
                in_arrays = convert._call_converter(self.converter, batch, self.device)
                if isinstance(in_arrays, tuple):
                    result = self.calc_local(*in_arrays)
                elif isinstance(in_arrays, dict):
                    result = self.calc_local(**in_arrays)
                else:
                    result = self.calc_local(in_arrays)
                if result is None:
                    raise ValueError(f'{type(self).__name__}.calc_local returned None; return '
                                     'a value for every batch')
                results.append(result)
                if self.progress_hook is not None and self.comm.rank == self.root:
                    self.progress_hook(batch)
        return results

    def __call__(self, trainer: Any = None) -> Any:  # type: ignore[override]
        """Evaluates this rank's batches and aggregates all ranks' results on the root."""
        error: Exception | None = None
        try:
            local: tuple[bool, Any] = (True, self._local_results())
        except Exception as caught:  # noqa: BLE001 - told to every rank, then re-raised
            error = caught
            local = (False, f'{type(caught).__name__}: {caught}')
        gathered = self.comm.gather_obj(local, root=self.root)
        failures = None
        if gathered is not None:
            failures = '; '.join(f'rank {rank}: {payload}'
                                 for rank, (ok, payload) in enumerate(gathered) if not ok)
        # Every rank learns of a failure anywhere, so that none waits for the others.
        failures = self.comm.bcast_obj(failures or None, root=self.root)
        if error is not None:
            raise error
        if failures:
            raise RuntimeError(f'{type(self).__name__}: the local evaluation failed on other '
                               f'ranks: {failures}')
        if self.comm.rank != self.root:
            return None
        assert gathered is not None
        per_rank = [results for _, results in gathered]
        rounds = max(map(len, per_rank), default=0)
        interleaved = [results[i] for i in range(rounds) for results in per_rank
                       if i < len(results)]
        return self.aggregate(interleaved)

    def finalize(self) -> None:
        """Finalizes the iterator."""
        finalize = getattr(self.iterator, 'finalize', None)
        if finalize is not None:
            finalize()
