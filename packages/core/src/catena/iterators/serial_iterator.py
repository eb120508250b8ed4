"""The iterator that reads examples in the calling thread."""

from __future__ import annotations

from typing import Any

from catena.dataset.iterator import Iterator
from catena.iterators import _statemachine


class SerialIterator(Iterator):
    """Dataset iterator that reads the examples one by one in the main thread.

    Args:
        dataset: The dataset (anything with ``__len__`` and ``__getitem__``).
        batch_size: The number of examples per mini-batch.
        repeat: Whether to loop over the dataset forever. Without repeat,
            iteration stops after one epoch; the last batch may be smaller.
        shuffle: True for a new random order each epoch, False for the
            dataset's order, None to let ``order_sampler`` decide (shuffling
            when it is None too).
        order_sampler: A callable ``(current_order, current_position) -> order``
            (see :class:`~catena.iterators.OrderSampler`); only with
            ``shuffle=None``.
    """

    _state: _statemachine.IteratorState

    def __init__(self, dataset: Any, batch_size: int, repeat: bool = True,
                 shuffle: bool | None = None, order_sampler: Any = None) -> None:
        batch_size = _statemachine.check_arguments(type(self).__name__, dataset, batch_size,
                                                   order_sampler)
        self.dataset = dataset
        self.batch_size = batch_size
        self._repeat = repeat
        self._shuffle = shuffle
        self.order_sampler = _statemachine.make_order_sampler(shuffle, order_sampler)
        self.reset()

    def __next__(self) -> list[Any]:
        state, indices = _statemachine.advance(
            self._state, self.batch_size, self._repeat, self.order_sampler, len(self.dataset))
        if indices is None:
            self._state = state
            raise StopIteration
        dataset = self.dataset
        batch = [dataset[int(i)] for i in indices]
        self._previous_epoch_detail = self.epoch_detail
        self._state = state
        return batch

    next = __next__

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
        self._state = _statemachine.initial_state(len(self.dataset), self.order_sampler)
        self._previous_epoch_detail = -1.0

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the position, epoch, order and the sampler's random state."""
        self._state, self._previous_epoch_detail = _statemachine.serialize_state(
            serializer, self._state, self._previous_epoch_detail, self.order_sampler,
            self.batch_size, len(self.dataset))
