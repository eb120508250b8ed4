"""The iterator that loads examples in a pool of threads."""

from __future__ import annotations

import concurrent.futures
from typing import Any

from catena.iterators import _prefetch
from catena.utils import _validate


def _fetch(dataset: Any, indices: list[int]) -> list[Any]:
    return [dataset[i] for i in indices]


class MultithreadIterator(_prefetch.PrefetchIterator):
    """Dataset iterator that loads the examples in worker threads.

    The next batch is loaded while the current one is used. Arguments are
    those of :class:`~catena.iterators.SerialIterator`, plus:

    Args:
        n_threads: The number of worker threads.
    """

    def __init__(self, dataset: Any, batch_size: int, repeat: bool = True,
                 shuffle: bool | None = None, n_threads: int = 1,
                 order_sampler: Any = None) -> None:
        self.n_threads = _validate.integer(type(self).__name__, 'n_threads', n_threads, 1)
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._futures: dict[int, list[concurrent.futures.Future[list[Any]]]] = {}
        super().__init__(dataset, batch_size, repeat, shuffle, order_sampler, depth=2)

    def _submit(self, item: _prefetch.Planned) -> None:
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(
                self.n_threads, thread_name_prefix='catena-MultithreadIterator')
        executor = self._executor
        self._futures[item.batch_id] = [
            executor.submit(_fetch, self.dataset, chunk)
            for chunk in _prefetch.split_indices(item.indices, self.n_threads)]

    def _collect(self, item: _prefetch.Planned) -> list[Any]:
        futures = self._futures.pop(item.batch_id)
        batch: list[Any] = []
        for future in futures:
            batch.extend(future.result())
        return batch

    def _discard(self, items: list[_prefetch.Planned]) -> None:
        for item in items:
            for future in self._futures.pop(item.batch_id, ()):
                future.cancel()

    def finalize(self) -> None:
        """Stops the worker threads (waiting for running loads); idempotent."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
        self._rewind()
