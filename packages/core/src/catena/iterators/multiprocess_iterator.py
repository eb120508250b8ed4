"""The iterator that loads examples in worker processes."""

from __future__ import annotations

import os
from typing import Any

from catena.iterators import _prefetch, _workers
from catena.utils import _validate


class MultiprocessIterator(_prefetch.PrefetchIterator):
    """Dataset iterator that loads the examples in parallel worker processes.

    Each batch is cut into one chunk per worker; up to ``n_prefetch`` batches
    beyond the current one are loaded ahead. Workers are started on the
    first ``next()`` with the ``forkserver`` start method where available
    (``spawn`` otherwise), so the dataset must be picklable and its classes
    importable by module name. Array data come back through shared memory
    (``/dev/shm``); a full ``/dev/shm`` raises
    :class:`~catena.iterators._workers.SharedMemoryFullError` with what to do,
    instead of crashing a worker.

    An exception in a worker is re-raised by ``next()`` with the worker's
    traceback attached as its cause; a worker that dies raises RuntimeError.
    :meth:`finalize` stops the workers and is idempotent; an iterator that is
    never finalized is cleaned up when it is garbage collected or at exit.

    Args:
        dataset: The dataset.
        batch_size: The number of examples per mini-batch.
        repeat: Whether to loop over the dataset forever.
        shuffle: As in :class:`~catena.iterators.SerialIterator`.
        n_processes: The number of worker processes (default: the CPU count).
        n_prefetch: The number of batches loaded ahead of the current one.
        shared_mem: 0 sends the data through pipes; None or a positive value
            uses shared memory (the blocks are sized from the actual data,
            so the value itself is not needed).
        order_sampler: As in :class:`~catena.iterators.SerialIterator`.
        dataset_timeout: Seconds a batch may take before a
            :class:`MultiprocessIterator.TimeoutWarning` is issued (None or 0:
            never). Waiting continues while the workers are alive.
        maxtasksperchild: Chunks a worker loads before it is replaced by a
            fresh process (None: never replaced).
        start_method: catena's addition (keyword only): ``'forkserver'``,
            ``'spawn'`` or ``'fork'``; None picks forkserver or spawn.
    """

    class TimeoutWarning(RuntimeWarning):
        """Issued when loading a batch takes longer than ``dataset_timeout``."""

    def __init__(self, dataset: Any, batch_size: int, repeat: bool = True,
                 shuffle: bool | None = None, n_processes: int | None = None,
                 n_prefetch: int = 1, shared_mem: int | None = None,
                 order_sampler: Any = None, dataset_timeout: float | None = 30.0,
                 maxtasksperchild: int | None = None, *,
                 start_method: str | None = None) -> None:
        who = type(self).__name__
        n_processes = _validate.integer(who, 'n_processes', n_processes, 1, optional=True)
        n_prefetch = _validate.integer(who, 'n_prefetch', n_prefetch, 1)
        shared_mem = _validate.integer(who, 'shared_mem', shared_mem, 0, optional=True)
        _validate.real(who, 'dataset_timeout', dataset_timeout, 0, optional=True)
        maxtasksperchild = _validate.integer(who, 'maxtasksperchild', maxtasksperchild, 1,
                                             optional=True)
        if start_method not in (None, 'forkserver', 'spawn', 'fork'):
            raise ValueError(f"{who}: start_method must be None, 'forkserver', 'spawn' or "
                             f"'fork'; got {start_method!r}")
        self.n_processes = n_processes or os.cpu_count() or 1
        self.n_prefetch = n_prefetch
        self.shared_mem = shared_mem
        self.dataset_timeout = dataset_timeout
        self.maxtasksperchild = maxtasksperchild
        self.start_method = start_method
        self._pool: _workers.WorkerPool | None = None
        super().__init__(dataset, batch_size, repeat, shuffle, order_sampler,
                         depth=n_prefetch + 1)

    def _get_pool(self) -> _workers.WorkerPool:
        if self._pool is None:
            self._pool = _workers.WorkerPool(
                self.dataset, self.n_processes, self.shared_mem != 0, self.maxtasksperchild,
                self.start_method, self.dataset_timeout, self.TimeoutWarning)
        return self._pool

    def _submit(self, item: _prefetch.Planned) -> None:
        self._get_pool().submit(item.batch_id,
                                _prefetch.split_indices(item.indices, self.n_processes))

    def _collect(self, item: _prefetch.Planned) -> list[Any]:
        pool = self._get_pool()
        try:
            return pool.collect(item.batch_id)
        except BaseException:
            if pool._closed:
                self._pool = None
            raise

    def _discard(self, items: list[_prefetch.Planned]) -> None:
        if self._pool is not None:
            self._pool.forget([item.batch_id for item in items])

    def finalize(self) -> None:
        """Stops the worker processes and frees their shared memory; idempotent.

        The iterator stays usable: the next ``next()`` starts new workers and
        continues from the delivered position.
        """
        self._rewind()
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state['_pool'] = None
        state['_pending'] = type(self._pending)()
        state['_plan_state'] = self._state
        state['_exhausted'] = False
        return state
