"""Snapshot writers: how (and in which thread or process) a snapshot reaches the disk.

A writer is called as ``writer(filename, outdir, target)`` by the snapshot
extensions (:func:`~catena.training.extensions.snapshot`), where ``target``
is what the saving function receives. Every writer here writes atomically:
the saving function writes into a private temporary folder beside the
destination, the file is flushed to disk (``os.fsync``), then renamed onto
``outdir/filename`` and the folder entry is synced too. A crash at any
moment leaves either no file or the complete file under the final name;
at worst a hidden ``.tmp-<name>-*`` folder remains, which the next write to
the same folder removes once the process that left it is gone.

The process-based writers pass the saving function, its keyword arguments
and the target to another process, so with the ``spawn`` and
``forkserver`` start methods these must be picklable (module-level
functions such as :func:`catena.serializers.save_npz` are; the snapshot
extensions hand over a plain dictionary of arrays).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.queues
import os
import pickle
import queue as queue_module
import threading
import traceback
import warnings
import weakref
from collections.abc import Callable
from typing import Any

from catena import _atomic
from catena.serializers import npz

SaveFunction = Callable[..., Any]


def write_atomically(filename: str, outdir: str, target: Any, savefun: SaveFunction,
                     **kwds: Any) -> str:
    """Writes ``savefun(path, target, **kwds)`` to ``outdir/filename`` atomically.

    ``savefun`` writes into a new hidden folder beside the destination (so
    it sees a path with the final file name); the file is synced to disk and
    renamed onto the destination, and the folder is synced. If ``savefun``
    raises, the temporary folder is removed and an existing destination is
    left as it was. Temporary folders that killed writers left in the
    destination's folder are removed first (see
    :func:`catena._atomic.remove_stale_temporaries`: only folders of this
    writer's own making, whose process is gone).

    Args:
        filename: The file name, relative to ``outdir`` (it may contain
            subfolders, which are created).
        outdir: The output folder (created when missing).
        target: The object given to ``savefun``.
        savefun: Called as ``savefun(path, target, **kwds)``; it must write
            one file at ``path``.
        **kwds: More keyword arguments for ``savefun``.

    Returns:
        The destination path.

    Raises:
        FileNotFoundError: If ``savefun`` returned without writing ``path``.
    """
    destination = os.path.join(os.fspath(outdir), filename)
    folder = os.path.dirname(os.path.abspath(destination))
    os.makedirs(folder, exist_ok=True)
    _atomic.remove_stale_temporaries(folder)
    with _atomic.atomic_named_path(destination) as temporary:
        savefun(temporary, target, **kwds)
    return destination


def _write_in_worker(filename: str, outdir: str, target: Any, savefun: SaveFunction,
                     kwds: dict[str, Any]) -> None:
    # The target of worker processes: a module-level function, so that nothing
    # but its arguments is pickled under the spawn and forkserver start methods.
    write_atomically(filename, outdir, target, savefun, **kwds)


def _run_hooks(hooks: list[Callable[[], Any]]) -> None:
    for hook in list(hooks):
        hook()


def _consume(task_queue: Any, hooks: list[Callable[[], Any]] | None) -> None:
    # The loop of a queue writer's consumer thread or process. It holds no
    # reference to the writer, so an unfinalized writer can still be collected.
    while True:
        item = task_queue.get()
        try:
            if item is None:
                return
            if isinstance(item, bytes):
                item = pickle.loads(item)
            item[0](item[1], item[2], item[3])  # (task, filename, outdir, target)
            if hooks is not None:
                _run_hooks(hooks)
        except Exception:
            # Keep serving: one failed snapshot must not stop the later ones
            # (nor make finalize wait forever). The traceback goes to stderr,
            # as for an exception in any thread.
            traceback.print_exc()
        finally:
            task_queue.task_done()


def _stop_consumer(task_queue: Any, consumer: Any, owner_pid: int) -> None:
    if os.getpid() != owner_pid:
        return  # a forked copy of the writer's process does not own the consumer
    consumed = consumer.is_alive()
    if consumed:
        task_queue.put(None)
        consumer.join()
        if not isinstance(task_queue, multiprocessing.queues.Queue) and task_queue.empty():
            # Returns at once: the consumer marked every item it took as done.
            # (Not for a process's queue: a killed consumer leaves its item
            # undone, and this would wait forever.)
            task_queue.join()
    if hasattr(task_queue, 'join_thread'):  # a multiprocessing queue: end its feeder thread
        if not consumed:
            task_queue.cancel_join_thread()  # nobody reads what is left; do not wait on it
        task_queue.close()
        task_queue.join_thread()


def _context(writer: Any) -> Any:
    context = writer.multiprocessing_context
    if context is None:
        return multiprocessing.get_context()
    if isinstance(context, str):
        return multiprocessing.get_context(context)
    return context


class Writer:
    """The base of snapshot writers.

    A writer is called as ``writer(filename, outdir, target)``;
    :meth:`finalize` waits for everything it started.
    :meth:`save` writes atomically and then runs the post-save hooks (the
    snapshot extension registers one that deletes old snapshots when
    ``n_retains`` is set).
    """

    def __init__(self) -> None:
        self._post_save_hooks: list[Callable[[], Any]] = []

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        """Writes ``target`` to ``outdir/filename`` (possibly later, elsewhere)."""
        raise NotImplementedError(f'{type(self).__name__} must implement '
                                  '__call__(filename, outdir, target)')

    def finalize(self) -> None:
        """Waits for the pending writes and releases the workers (nothing by default)."""

    def save(self, filename: str, outdir: str, target: Any, savefun: SaveFunction,
             **kwds: Any) -> None:
        """Writes ``savefun(path, target, **kwds)`` atomically, then runs the post-save hooks.

        Args:
            filename: The file name, relative to ``outdir``.
            outdir: The output folder.
            target: The object given to ``savefun``.
            savefun: Called as ``savefun(path, target, **kwds)``.
            **kwds: More keyword arguments for ``savefun``.
        """
        write_atomically(filename, outdir, target, savefun, **kwds)
        self._post_save()

    def _add_cleanup_hook(self, hook_fun: Callable[[], Any]) -> None:
        self._post_save_hooks.append(hook_fun)

    def _post_save(self) -> None:
        _run_hooks(self._post_save_hooks)


class SimpleWriter(Writer):
    """Writes each snapshot right away, in the calling thread.

    Args:
        savefun: The saving function, called as
            ``savefun(path, target, **kwds)``.
        **kwds: Keyword arguments for ``savefun``.
    """

    def __init__(self, savefun: SaveFunction = npz.save_npz, **kwds: Any) -> None:
        super().__init__()
        if not callable(savefun):
            raise TypeError(f'savefun must be callable, got {type(savefun).__name__}')
        self._savefun = savefun
        self._kwds = kwds

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        self.save(filename, outdir, target, self._savefun, **self._kwds)


class StandardWriter(Writer):
    """Writes each snapshot in a new worker; a new snapshot first waits for the previous one.

    Subclasses define :meth:`create_worker`.

    Args:
        savefun: The saving function, called as
            ``savefun(path, target, **kwds)``.
        **kwds: Keyword arguments for ``savefun``.
    """

    def __init__(self, savefun: SaveFunction = npz.save_npz, **kwds: Any) -> None:
        super().__init__()
        if not callable(savefun):
            raise TypeError(f'savefun must be callable, got {type(savefun).__name__}')
        self._savefun = savefun
        self._kwds = kwds
        self._worker: Any = None
        self._started = False
        self._finalized = False
        self._filename: str | None = None

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        self._join_worker()
        self._filename = filename
        self._worker = self.create_worker(filename, outdir, target, **self._kwds)
        self._worker.start()
        self._started = True

    def create_worker(self, filename: str, outdir: str, target: Any, **kwds: Any) -> Any:
        """Returns an unstarted worker (a thread or process) that writes the snapshot."""
        raise NotImplementedError(f'{type(self).__name__} must implement create_worker')

    def finalize(self) -> None:
        """Waits for the last snapshot to be written."""
        self._join_worker()
        self._finalized = True

    def _join_worker(self) -> None:
        if self._started:
            self._worker.join()
            self._started = False
            self._after_join(self._worker)

    def _after_join(self, worker: Any) -> None:
        """Called in the writer's thread after a worker ended."""


class ThreadWriter(StandardWriter):
    """Writes each snapshot in a new thread (the training goes on meanwhile).

    Args:
        savefun: The saving function, called as
            ``savefun(path, target, **kwds)``.
        **kwds: Keyword arguments for ``savefun``.
    """

    def create_worker(self, filename: str, outdir: str, target: Any,
                      **kwds: Any) -> threading.Thread:
        return threading.Thread(target=self.save, args=(filename, outdir, target, self._savefun),
                                kwargs=kwds, name=f'snapshot writer ({filename})')


class ProcessWriter(StandardWriter):
    """Writes each snapshot in a new process.

    The post-save hooks (the deletion of old snapshots) run in this process
    once the worker has ended: when the next snapshot starts, or in
    :meth:`finalize`.

    Args:
        savefun: The saving function, called as
            ``savefun(path, target, **kwds)``; picklable under the
            ``spawn`` and ``forkserver`` start methods.
        **kwds: Keyword arguments for ``savefun``.

    Attributes:
        multiprocessing_context: The start method's name (``'fork'``,
            ``'spawn'``, ``'forkserver'``) or a multiprocessing context to
            start the workers with; None (the default) uses
            multiprocessing's default.
    """

    multiprocessing_context: Any = None

    def create_worker(self, filename: str, outdir: str, target: Any, **kwds: Any) -> Any:
        process_class = (multiprocessing.Process if self.multiprocessing_context is None
                         else _context(self).Process)
        return process_class(target=_write_in_worker,
                             args=(filename, outdir, target, self._savefun, kwds))

    def _after_join(self, worker: Any) -> None:
        if worker.exitcode != 0:
            warnings.warn(f'the snapshot writer process for {self._filename!r} exited with '
                          f'code {worker.exitcode}; that snapshot was not written',
                          RuntimeWarning, stacklevel=3)
            return
        self._post_save()


class QueueWriter(Writer):
    """Passes the snapshots to one long-lived consumer through a queue.

    The consumer, started at construction, runs ``task(filename, outdir,
    target)`` for each snapshot in turn, so the training never waits for a
    write. Subclasses define :meth:`create_queue` and
    :meth:`create_consumer`.

    Args:
        savefun: The saving function of the default task.
        task: The callable run for each snapshot; by default
            ``SimpleWriter(savefun=savefun)`` (see :meth:`create_task`).
    """

    def __init__(self, savefun: SaveFunction = npz.save_npz,
                 task: Callable[[str, str, Any], Any] | None = None) -> None:
        super().__init__()
        if task is None:
            task = self.create_task(savefun)
        if not callable(task):
            raise TypeError(f'task must be callable, got {type(task).__name__}')
        self._task = task
        self._queue = self.create_queue()
        self._consumer = self.create_consumer(self._queue)
        self._consumer.start()
        self._started = True
        self._finalized = False
        # Stops the consumer when the writer is collected or the interpreter
        # exits without finalize() (the consumer is a daemon, so it never
        # blocks the exit on its own).
        self._stopper = weakref.finalize(self, _stop_consumer, self._queue, self._consumer,
                                         os.getpid())

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        if self._finalized:
            raise RuntimeError(f'{type(self).__name__} is finalized; it writes no more snapshots')
        self._queue.put((self._task, filename, outdir, target))

    def create_task(self, savefun: SaveFunction) -> Callable[[str, str, Any], Any]:
        """Returns the default task: a :class:`SimpleWriter` of ``savefun``."""
        return SimpleWriter(savefun=savefun)

    def create_queue(self) -> Any:
        """Returns the queue between the writer and the consumer."""
        raise NotImplementedError(f'{type(self).__name__} must implement create_queue')

    def create_consumer(self, q: Any) -> Any:
        """Returns the unstarted consumer (a thread or process) of the queue ``q``."""
        raise NotImplementedError(f'{type(self).__name__} must implement create_consumer')

    def consume(self, q: Any) -> None:
        """Runs the tasks of ``q`` until it gets None (what the consumer does)."""
        _consume(q, self._post_save_hooks)

    def finalize(self) -> None:
        """Writes the queued snapshots, then stops the consumer."""
        if self._started and not self._finalized:
            self._stopper()
        self._started = False
        self._finalized = True


class ThreadQueueWriter(QueueWriter):
    """A queue writer whose consumer is a thread.

    Args:
        savefun: The saving function of the default task.
        task: The callable run for each snapshot (see :class:`QueueWriter`).
    """

    def create_queue(self) -> queue_module.Queue[Any]:
        return queue_module.Queue()

    def create_consumer(self, q: Any) -> threading.Thread:
        return threading.Thread(target=_consume, args=(q, self._post_save_hooks), daemon=True,
                                name='snapshot queue writer')


class ProcessQueueWriter(QueueWriter):
    """A queue writer whose consumer is a process.

    Each snapshot is pickled when it is queued, so an unpicklable task or
    target raises right away. The post-save hooks (the deletion of old
    snapshots) run in this process, on each call and in :meth:`finalize`.

    Args:
        savefun: The saving function of the default task (picklable).
        task: The callable run for each snapshot (picklable).

    Attributes:
        multiprocessing_context: The start method's name or a
            multiprocessing context for the consumer and its queue; None
            (the default) uses multiprocessing's default. Set it on the
            class before creating the writer.
    """

    multiprocessing_context: Any = None

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        if self._finalized:
            raise RuntimeError(f'{type(self).__name__} is finalized; it writes no more snapshots')
        try:
            item = pickle.dumps((self._task, filename, outdir, target),
                                protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            raise TypeError(f'ProcessQueueWriter passes the task and the target to another '
                            f'process, so they must be picklable: {error}') from error
        self._post_save()
        self._queue.put(item)

    def create_queue(self) -> Any:
        return _context(self).JoinableQueue()

    def create_consumer(self, q: Any) -> Any:
        return _context(self).Process(target=_consume, args=(q, None), daemon=True)

    def finalize(self) -> None:
        """Writes the queued snapshots, stops the consumer, then runs the post-save hooks."""
        was_running = self._started and not self._finalized
        super().finalize()
        if was_running:
            self._post_save()


__all__ = [
    'ProcessQueueWriter',
    'ProcessWriter',
    'QueueWriter',
    'SimpleWriter',
    'StandardWriter',
    'ThreadQueueWriter',
    'ThreadWriter',
    'Writer',
    'write_atomically',
]
