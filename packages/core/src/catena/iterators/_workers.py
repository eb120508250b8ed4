"""Worker processes of MultiprocessIterator and the shared-memory transport."""

from __future__ import annotations

import errno
import multiprocessing
import os
import pickle
import queue
import signal
import time
import traceback
import warnings
import weakref
from multiprocessing import shared_memory
from typing import Any

_SHM_DIR = '/dev/shm'
_INBAND_LIMIT = 16 * 1024  # buffers smaller than this travel inside the pickle
_POLL_S = 0.2  # how often the main process checks that its workers live


class SharedMemoryFullError(OSError):
    """Raised when /dev/shm has no room for a batch."""


class _RemoteTraceback(Exception):
    """Carries the formatted traceback of an exception raised in a worker."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return self.text


def _describe(exc: BaseException) -> tuple[bytes | None, str, str]:
    text = ''.join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    pickled: bytes | None = None
    try:
        data = pickle.dumps(exc)
        pickle.loads(data)
        pickled = data
    except Exception:
        pass
    return pickled, f'{type(exc).__name__}: {exc}', text


def _rebuild_error(described: tuple[bytes | None, str, str], pid: Any) -> BaseException:
    pickled, summary, text = described
    exc: BaseException | None = None
    if pickled is not None:
        try:
            exc = pickle.loads(pickled)
        except Exception:
            exc = None
    if exc is None:
        exc = RuntimeError(f'a MultiprocessIterator worker raised {summary}')
    exc.__cause__ = _RemoteTraceback(
        f'\n\nTraceback in MultiprocessIterator worker (pid {pid}):\n"""\n{text}"""')
    return exc


def _shm_free_bytes() -> int | None:
    try:
        st = os.statvfs(_SHM_DIR)
    except (OSError, AttributeError):
        return None
    return st.f_bavail * st.f_frsize


def _shm_full_message(needed: int, free: int | None) -> str:
    have = 'unknown' if free is None else f'{free} bytes'
    return (f'{_SHM_DIR} has no room for a batch chunk of {needed} bytes (free: {have}). '
            f'Enlarge it (for Docker: --shm-size=8g), lower batch_size or n_prefetch, '
            'or pass shared_mem=0 to MultiprocessIterator to send batches through pipes.')


def pack(obj: Any, use_shm: bool) -> tuple[bytes, str | None, list[tuple[int, int]]]:
    """Pickles ``obj``; large array buffers go to a new shared-memory block."""
    buffers: list[memoryview] = []

    def keep_inband(buffer: pickle.PickleBuffer) -> bool:
        raw = buffer.raw()
        if raw.nbytes < _INBAND_LIMIT:
            return True
        buffers.append(raw)
        return False

    if not use_shm:
        return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), None, []
    data = pickle.dumps(obj, protocol=5, buffer_callback=keep_inband)
    if not buffers:
        return data, None, []
    total = sum(b.nbytes for b in buffers)
    free = _shm_free_bytes()
    if free is not None and free < total:
        raise SharedMemoryFullError(errno.ENOSPC, _shm_full_message(total, free))
    try:
        shm = shared_memory.SharedMemory(create=True, size=total)
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.ENOMEM):
            raise SharedMemoryFullError(e.errno, _shm_full_message(total, free)) from e
        raise
    layout = []
    offset = 0
    target = shm.buf
    assert target is not None
    try:
        for b in buffers:
            target[offset:offset + b.nbytes] = b
            layout.append((offset, b.nbytes))
            offset += b.nbytes
    except BaseException:
        shm.close()
        shm.unlink()
        raise
    name = shm.name
    shm.close()
    return data, name, layout


def unpack(payload: tuple[bytes, str | None, list[tuple[int, int]]]) -> Any:
    """Rebuilds what :func:`pack` made, copying out and freeing the shared block."""
    data, name, layout = payload
    if name is None:
        return pickle.loads(data)
    shm = shared_memory.SharedMemory(name=name)
    try:
        source = shm.buf
        assert source is not None
        buffers = []
        for offset, size in layout:
            with source[offset:offset + size] as view:
                buffers.append(bytearray(view))
        del source
    finally:
        shm.close()
        shm.unlink()
    return pickle.loads(data, buffers=buffers)


def release(payload: Any) -> None:
    """Frees the shared block of a payload nobody will read."""
    try:
        name = payload[1]
        if name is not None:
            shm = shared_memory.SharedMemory(name=name)
            shm.close()
            shm.unlink()
    except Exception:
        pass


def worker_main(wid: int, dataset_bytes: bytes, tasks: Any, results: Any, stop: Any,
                use_shm: bool, max_tasks: int | None) -> None:
    """Loop of a worker: load examples for (batch, chunk) tasks until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    pid = os.getpid()
    try:
        dataset = pickle.loads(dataset_bytes)
    except BaseException as e:
        results.put(('fatal', pid, None, None, _describe(e)))
        return
    parent = multiprocessing.parent_process()
    done = 0
    while True:
        try:
            task = tasks.get(timeout=1.0)
        except queue.Empty:
            if parent is not None and not parent.is_alive():
                return
            continue
        if task is None or stop.is_set():
            return
        batch_id, chunk_no, indices = task
        try:
            payload = pack([dataset[i] for i in indices], use_shm)
        except BaseException as e:
            results.put(('error', pid, batch_id, chunk_no, _describe(e)))
        else:
            results.put(('ok', pid, batch_id, chunk_no, payload))
        done += 1
        if max_tasks is not None and done >= max_tasks:
            return


def _drain(results: Any) -> None:
    while True:
        try:
            message = results.get_nowait()
        except (queue.Empty, OSError, EOFError, ValueError):
            return
        if message[0] == 'ok':
            release(message[4])


def _shutdown(workers: list[Any], tasks: Any, results: Any, stop: Any) -> None:
    stop.set()  # workers skip the tasks still queued
    for _ in workers:
        try:
            tasks.put_nowait(None)
        except Exception:
            break
    deadline = time.monotonic() + 2.0
    while any(w.is_alive() for w in workers) and time.monotonic() < deadline:
        _drain(results)
        for w in workers:
            w.join(timeout=0.02)
    for w in workers:
        if w.is_alive():
            w.terminate()
            w.join(timeout=1.0)
        if w.is_alive():
            w.kill()
            w.join(timeout=1.0)
    _drain(results)
    for q in (tasks, results):
        q.cancel_join_thread()
        q.close()
    for w in workers:
        try:
            w.close()
        except ValueError:
            pass
    workers.clear()


_preloaded: set[str] = set()


def get_context(start_method: str | None) -> Any:
    if start_method is None:
        methods = multiprocessing.get_all_start_methods()
        start_method = 'forkserver' if 'forkserver' in methods else 'spawn'
    ctx = multiprocessing.get_context(start_method)
    if start_method == 'forkserver' and start_method not in _preloaded:
        # Workers forked from the server start with catena and NumPy imported.
        ctx.set_forkserver_preload(['catena.iterators._workers', 'catena.datasets', 'numpy'])
        _preloaded.add(start_method)
    return ctx


class WorkerPool:
    """Processes that load (batch, chunk) tasks; results are gathered per batch."""

    def __init__(self, dataset: Any, n_processes: int, use_shm: bool, max_tasks: int | None,
                 start_method: str | None, dataset_timeout: float | None,
                 timeout_warning: type[Warning]) -> None:
        self._ctx = get_context(start_method)
        method = self._ctx.get_start_method()
        try:
            self._dataset_bytes = pickle.dumps(dataset, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:
            raise TypeError(
                f'MultiprocessIterator: the dataset cannot be pickled for the worker processes '
                f'({type(e).__name__}: {e}). With the {method!r} start method the dataset must '
                'be picklable and its classes and functions importable by module name; '
                "start_method='fork' avoids this where fork is available") from e
        self._use_shm = use_shm
        self._max_tasks = max_tasks
        self._dataset_timeout = dataset_timeout
        self._timeout_warning = timeout_warning
        self._tasks = self._ctx.Queue()
        self._results = self._ctx.Queue()
        self._stop = self._ctx.Event()
        self._workers: list[Any] = []
        self._chunks: dict[int, dict[int, Any]] = {}
        self._expected: dict[int, int] = {}
        self._closed = False
        self._finalizer = weakref.finalize(self, _shutdown, self._workers, self._tasks,
                                           self._results, self._stop)
        for _ in range(n_processes):
            self._start_worker()

    def _start_worker(self) -> None:
        worker = self._ctx.Process(
            target=worker_main, daemon=True, name='catena-MultiprocessIterator-worker',
            args=(len(self._workers), self._dataset_bytes, self._tasks, self._results,
                  self._stop, self._use_shm, self._max_tasks))
        try:
            worker.start()
        except (OSError, EOFError) as e:
            self.close()
            raise RuntimeError(
                f'MultiprocessIterator could not start a worker process '
                f'({type(e).__name__}: {e}). With the {self._ctx.get_start_method()!r} start '
                "method the main script must guard its entry point with "
                "\"if __name__ == '__main__':\" (see the worker's error above)") from e
        self._workers.append(worker)

    def submit(self, batch_id: int, chunks: list[list[int]]) -> None:
        self._expected[batch_id] = len(chunks)
        self._chunks[batch_id] = {}
        for chunk_no, indices in enumerate(chunks):
            self._tasks.put((batch_id, chunk_no, indices))

    def forget(self, batch_ids: list[int]) -> None:
        for batch_id in batch_ids:
            self._expected.pop(batch_id, None)
            self._chunks.pop(batch_id, None)

    def collect(self, batch_id: int) -> list[Any]:
        start = time.monotonic()
        warned = False
        while len(self._chunks[batch_id]) < self._expected[batch_id]:
            try:
                message = self._results.get(timeout=_POLL_S)
            except queue.Empty:
                self._check_workers()
                timeout = self._dataset_timeout
                if timeout and not warned and time.monotonic() - start > timeout:
                    warnings.warn(
                        f'MultiprocessIterator: a batch has not arrived after {timeout} s; '
                        'the dataset may be slow or stuck', self._timeout_warning, stacklevel=4)
                    warned = True
                continue
            self._handle(message)
            self._check_workers()
        chunks = self._chunks.pop(batch_id)
        del self._expected[batch_id]
        errors = [value for kind, value in chunks.values() if kind == 'error']
        if errors:
            raise errors[0]
        batch: list[Any] = []
        for chunk_no in range(len(chunks)):
            batch.extend(chunks[chunk_no][1])
        return batch

    def _handle(self, message: tuple[Any, ...]) -> None:
        kind, pid, batch_id, chunk_no, value = message
        if kind == 'fatal':
            error = _rebuild_error(value, pid)
            self.close()
            raise RuntimeError(
                'a MultiprocessIterator worker could not load the dataset') from error
        target = self._chunks.get(batch_id)
        if target is None:
            if kind == 'ok':
                release(value)
            return
        if kind == 'ok':
            # Copy out at once: no shared block outlives its message.
            try:
                target[chunk_no] = ('ok', unpack(value))
            except Exception as e:
                target[chunk_no] = ('error', e)
        else:
            target[chunk_no] = ('error', _rebuild_error(value, pid))

    def _check_workers(self) -> None:
        for i, worker in enumerate(self._workers):
            code = worker.exitcode
            if code is None:
                continue
            if code == 0 and self._max_tasks is not None:
                worker.close()
                self._workers.pop(i)
                self._start_worker()
                return
            pid = worker.pid
            self.close()
            raise RuntimeError(_death_message(pid, code))

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._finalizer()


def _death_message(pid: Any, code: int) -> str:
    text = f'a MultiprocessIterator worker (pid {pid}) exited unexpectedly with code {code}'
    if code == -signal.SIGBUS:
        text += (f' (SIGBUS: {_SHM_DIR} is probably full; enlarge it, e.g. docker '
                 '--shm-size, or pass shared_mem=0)')
    elif code == -signal.SIGKILL:
        text += ' (SIGKILL: possibly killed by the out-of-memory killer)'
    elif code < 0:
        text += f' (signal {signal.Signals(-code).name})'
    return text
