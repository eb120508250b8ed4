"""``create_multi_node_checkpointer``: per-rank generational snapshots, resumed in agreement."""

from __future__ import annotations

import contextlib
import os
import re
import time
from typing import Any

from catena import serializers
from catena.distributed.communicators.base import CommunicatorBase
from catena.training import extension


def _check_count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f'{name} must be a positive int, got {value!r}')
    return value


class _CheckpointStats:
    """How long the saves took: :meth:`start` and :meth:`end` around each one."""

    def __init__(self) -> None:
        self.timings: list[float] = []
        self._started: float | None = None

    def start(self) -> None:
        """Marks the beginning of a save."""
        self._started = time.perf_counter()

    def end(self) -> None:
        """Marks the end of the save begun by :meth:`start`."""
        if self._started is None:
            raise RuntimeError('_CheckpointStats.end() called without start()')
        self.timings.append(time.perf_counter() - self._started)
        self._started = None

    def report(self) -> str:
        """A one-line summary: the number of saves and their mean, min and max time."""
        if not self.timings:
            return 'No checkpoint saved yet'
        count = len(self.timings)
        return (f'{count} checkpoint(s) saved: mean {sum(self.timings) / count:.6f} s, '
                f'min {min(self.timings):.6f} s, max {max(self.timings):.6f} s')


class _MultiNodeCheckpointer(extension.Extension):
    """Writes ``<name>.<rank>.<iteration>`` files and resumes from the newest common one.

    Made by :func:`create_multi_node_checkpointer`, which documents it.
    """

    trigger: Any = (1, 'iteration')
    priority = -100  # after the other extensions of the iteration, like snapshot

    def __init__(self, name: str, comm: CommunicatorBase, cp_interval: int, gc_interval: int,
                 path: str | None) -> None:
        self.checkpoint_name = name
        self.comm = comm
        self.cp_interval = cp_interval
        self.gc_interval = gc_interval
        self.path = path
        self._saves_since_gc = 0
        self._failed = False
        self._pattern = re.compile(re.escape(f'{name}.{comm.rank}.') + r'(\d+)')
        self.stats = _CheckpointStats()

    @property
    def default_name(self) -> str:  # type: ignore[override]
        return 'multi_node_checkpointer'

    # ----------------------------------------------------------------- files

    def _folder(self, trainer: Any = None) -> str:
        if self.path is None:
            self.path = trainer.out if trainer is not None and hasattr(trainer, 'out') \
                else os.getcwd()
        return self.path

    def _filename(self, iteration: int) -> str:
        return os.path.join(self._folder(), f'{self.checkpoint_name}.{self.comm.rank}.'
                                            f'{iteration}')

    def _filenames(self, iterations: Any) -> list[str]:
        """The file names (without folder) of this rank's checkpoints of ``iterations``."""
        return [f'{self.checkpoint_name}.{self.comm.rank}.{int(i)}' for i in iterations]

    def _parse_filenames(self, filenames: Any) -> list[tuple[str, int, int]]:
        """``(name, rank, iteration)`` of each of ``filenames`` that is one of this run's
        checkpoints (of any rank)."""
        pattern = re.compile(re.escape(self.checkpoint_name) + r'\.(\d+)\.(\d+)')
        parsed = []
        for filename in filenames:
            match = pattern.fullmatch(os.path.basename(filename))
            if match is not None:
                parsed.append((self.checkpoint_name, int(match.group(1)), int(match.group(2))))
        return parsed

    def get_stats(self) -> str:
        """A summary of the time the saves took."""
        return self.stats.report()

    def local_iterations(self) -> list[int]:
        """The iterations of this rank's checkpoint files in the folder, ascending."""
        try:
            names = os.listdir(self._folder())
        except FileNotFoundError:
            return []
        found = []
        for name in names:
            match = self._pattern.fullmatch(name)
            if match is not None and os.path.isfile(os.path.join(self._folder(), name)):
                found.append(int(match.group(1)))
        return sorted(found)

    def _common_iterations(self) -> tuple[list[int], list[int]]:
        """(this rank's iterations, the iterations every rank has) - a collective call."""
        mine = self.local_iterations()
        everyone = self.comm.allgather_obj(mine)
        common = set(everyone[0]).intersection(*everyone[1:])
        return mine, sorted(common)

    def _remove(self, iterations: Any) -> None:
        for iteration in iterations:
            with contextlib.suppress(FileNotFoundError):
                os.remove(self._filename(iteration))

    # ------------------------------------------------------------ save / load

    def __call__(self, trainer: Any) -> None:
        """Saves the trainer as of its current iteration (every rank, at the same iterations)."""
        self._folder(trainer)
        self.save(trainer, trainer.updater.iteration)

    def save(self, target: Any, iteration: int) -> None:
        """Writes ``target`` (atomically) as this rank's checkpoint of ``iteration``.

        Every ``gc_interval`` saves, old checkpoints are removed (a collective
        call, so every rank must save equally often).

        Args:
            target: The object to save (defines ``serialize``; a trainer...).
            iteration: The iteration number in the file name.
        """
        if isinstance(iteration, bool) or not isinstance(iteration, int) or iteration < 0:
            raise ValueError(f'iteration must be a non-negative int, got {iteration!r}')
        folder = self._folder()
        os.makedirs(folder, exist_ok=True)
        self.stats.start()
        serializers.save_npz(self._filename(iteration), target)
        self.stats.end()
        self._saves_since_gc += 1
        if self._saves_since_gc >= self.gc_interval:
            self._saves_since_gc = 0
            self.collect_garbage()

    def collect_garbage(self) -> None:
        """Removes this rank's checkpoints but the newest ``cp_interval`` common ones (collective).

        The files newer than the newest common checkpoint (written by this
        rank only so far) are kept too.
        """
        mine, common = self._common_iterations()
        keep = set(common[-self.cp_interval:])
        newest_common = common[-1] if common else -1
        self._remove(it for it in mine if it not in keep and it < newest_common)

    def maybe_load(self, trainer: Any, optimizer: Any = None, path: str | None = None) -> None:
        """Loads the newest checkpoint that every rank has, if any (collective).

        Call it on every rank before training. The ranks exchange the
        iterations of their checkpoint files and load the newest one they
        all have; this rank's files newer than that one are removed (they
        cannot be resumed from consistently). Without a common checkpoint
        nothing changes (``trainer.updater.iteration`` stays 0).

        Args:
            trainer: The object to load into (a trainer, or what was given
                to :meth:`save`).
            optimizer: The multi-node optimizer
                (:func:`~catena.distributed.create_multi_node_optimizer`), or
                None. After a load its next update takes a step instead of
                first broadcasting rank 0's parameters: every rank loaded the
                same state.
            path: The folder of the checkpoints (default: the one given at
                creation, else ``trainer.out``).
        """
        if path is not None:
            self.path = path
        self._folder(trainer)
        mine, common = self._common_iterations()
        if not common:
            return
        latest = common[-1]
        self._remove(it for it in mine if it > latest)
        serializers.load_npz(self._filename(latest), trainer)
        if optimizer is not None:
            _mark_parameters_in_sync(optimizer)

    # ------------------------------------------------------------ lifecycle

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        """Keeps the checkpoints: the training failed, so it may be resumed."""
        self._failed = True

    def finalize(self) -> None:
        """Removes this rank's checkpoints once the training has ended without an error."""
        if not self._failed and self.path is not None:
            self._remove(self.local_iterations())


def _mark_parameters_in_sync(optimizer: Any) -> None:
    # The multi-node optimizer broadcasts rank 0's parameters (and skips the
    # step) whenever its parameter layout is new to it; recording the current
    # layout tells it the parameters agree already.
    record = getattr(type(optimizer), '_params_changed', None)
    target = getattr(optimizer, 'target', None)
    if record is not None and target is not None:
        record(optimizer, target)


def create_multi_node_checkpointer(name: str, comm: CommunicatorBase, cp_interval: int = 5,
                                   gc_interval: int = 5, path: str | None = None) -> Any:
    """Returns a trainer extension that keeps per-rank checkpoints to resume training from.

    Every rank writes its own snapshot (of the trainer, when used as an
    extension) to ``<path>/<name>.<rank>.<iteration>``, atomically. To
    resume after a failure, call ``checkpointer.maybe_load(trainer,
    optimizer)`` on every rank before ``trainer.run()``: the ranks agree on
    the newest iteration that all of them have a checkpoint of and load it.
    Every ``gc_interval`` saves the older checkpoints are removed, keeping
    the newest ``cp_interval`` ones that all ranks have; when the training
    ends without an error, all of this rank's checkpoints are removed.
    Saving, the garbage collection and ``maybe_load`` are collective calls
    (the extension must fire at the same iterations on every rank).

    It also works without a trainer: ``checkpointer.maybe_load(obj)``, then
    ``checkpointer.save(obj, iteration)`` in the training loop.

    ChainerMN deprecates it in favour of
    :func:`~catena.distributed.extensions.multi_node_snapshot`.

    Args:
        name: The name of the run (the first part of the file names).
        comm: The communicator.
        cp_interval: How many of the newest common checkpoints to keep.
        gc_interval: After how many saves old checkpoints are removed.
        path: The folder of the checkpoints (default: the trainer's ``out``
            folder, or the current folder without a trainer).

    Returns:
        The checkpointer extension (with ``save``, ``maybe_load`` and
        ``collect_garbage``).
    """
    if not isinstance(name, str) or not name or os.sep in name:
        raise ValueError(f'name must be a non-empty file name (no {os.sep!r}), got {name!r}')
    if not isinstance(comm, CommunicatorBase):
        raise TypeError(f'comm must be a catena.distributed communicator, got '
                        f'{type(comm).__name__}')
    return _MultiNodeCheckpointer(name, comm, _check_count(cp_interval, 'cp_interval'),
                                  _check_count(gc_interval, 'gc_interval'),
                                  None if path is None else os.fspath(path))
