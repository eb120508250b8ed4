"""Base of the iterators that load batches ahead of time in workers."""

from __future__ import annotations

import collections
from typing import Any, NamedTuple

import numpy

from catena.dataset.iterator import Iterator
from catena.iterators import _statemachine


class Planned(NamedTuple):
    batch_id: int
    indices: numpy.ndarray
    state_after: _statemachine.IteratorState
    sampler_before: Any  # a copy of the sampler before this batch drew a new order, or None


class PrefetchIterator(Iterator):
    """Plans batches in the main thread and lets a subclass load them ahead.

    The plan (indices and positions) is computed here, so the position a
    worker reports never matters: ``serialize`` drops the batches loaded
    ahead, rewinds the order sampler to the delivered position, and the
    restored iterator plans the same batches again.
    """

    _state: _statemachine.IteratorState
    _plan_state: _statemachine.IteratorState

    def __init__(self, dataset: Any, batch_size: int, repeat: bool, shuffle: bool | None,
                 order_sampler: Any, depth: int) -> None:
        batch_size = _statemachine.check_arguments(type(self).__name__, dataset, batch_size,
                                                   order_sampler)
        self.dataset = dataset
        self.batch_size = batch_size
        self._repeat = repeat
        self._shuffle = shuffle
        self.order_sampler = _statemachine.make_order_sampler(shuffle, order_sampler)
        self._depth = max(1, depth)
        self._next_id = 0
        self._pending: collections.deque[Planned] = collections.deque()
        self.reset()

    # -- subclass hooks ----------------------------------------------------
    def _submit(self, item: Planned) -> None:
        raise NotImplementedError

    def _collect(self, item: Planned) -> list[Any]:
        raise NotImplementedError

    def _discard(self, items: list[Planned]) -> None:
        raise NotImplementedError

    # -- planning ----------------------------------------------------------
    def _plan_one(self) -> Planned | None:
        state = self._plan_state
        n = len(self.dataset)
        before = None
        if (self.order_sampler is not None and state.current_position + self.batch_size
                >= _statemachine.epoch_size(state, n)):
            before = _statemachine.copy_sampler(self.order_sampler)
        new_state, indices = _statemachine.advance(
            state, self.batch_size, self._repeat, self.order_sampler, n)
        if indices is None:
            self._exhausted = True
            return None
        self._plan_state = new_state
        self._next_id += 1
        return Planned(self._next_id, indices, new_state, before)

    def _fill(self) -> None:
        while not self._exhausted and len(self._pending) < self._depth:
            item = self._plan_one()
            if item is None:
                break
            self._submit(item)
            self._pending.append(item)

    def _rewind(self, failed: Planned | None = None) -> None:
        """Drops the batches planned beyond the delivered position."""
        items = ([failed] if failed is not None else []) + list(self._pending)
        self._pending.clear()
        for item in items:
            if item.sampler_before is not None:
                self.order_sampler = item.sampler_before
                break
        if items:
            self._discard(items)
        self._plan_state = self._state
        self._exhausted = False

    def __next__(self) -> list[Any]:
        self._fill()
        if not self._pending:
            raise StopIteration
        item = self._pending.popleft()
        try:
            batch = self._collect(item)
        except BaseException:
            self._rewind(item)
            raise
        self._previous_epoch_detail = self.epoch_detail
        self._state = item.state_after
        self._fill()
        return batch

    next = __next__

    # -- Iterator attributes ----------------------------------------------
    @property
    def epoch(self) -> int:
        return self._state.epoch

    @property
    def is_new_epoch(self) -> bool:
        return self._state.is_new_epoch

    @property
    def current_position(self) -> int:
        return self._state.current_position

    @property
    def repeat(self) -> bool:
        return self._repeat

    @property
    def epoch_detail(self) -> float:
        size = _statemachine.epoch_size(self._state, len(self.dataset))
        return self.epoch + (self.current_position / size if size else 0.0)

    @property
    def previous_epoch_detail(self) -> float | None:
        if self._previous_epoch_detail < 0:
            return None
        return self._previous_epoch_detail

    def reset(self) -> None:
        """Rewinds to the start of the first epoch (drawing a new order)."""
        if self._pending:
            self._discard(list(self._pending))
            self._pending.clear()
        self._state = _statemachine.initial_state(len(self.dataset), self.order_sampler)
        self._plan_state = self._state
        self._exhausted = False
        self._previous_epoch_detail = -1.0

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the position, epoch, order and the sampler's random state.

        Batches already loaded ahead are dropped (and loaded again after the
        call), so saving and loading both describe the delivered position.
        """
        self._rewind()
        self._state, self._previous_epoch_detail = _statemachine.serialize_state(
            serializer, self._state, self._previous_epoch_detail, self.order_sampler,
            self.batch_size, len(self.dataset))
        self._plan_state = self._state


def split_indices(indices: numpy.ndarray, n: int) -> list[list[int]]:
    """Splits a batch's indices into at most ``n`` contiguous, non-empty chunks."""
    n = max(1, min(n, len(indices)))
    return [[int(i) for i in chunk] for chunk in numpy.array_split(indices, n)]
