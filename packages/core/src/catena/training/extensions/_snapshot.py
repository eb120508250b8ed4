"""``snapshot`` and ``snapshot_object``: save the trainer or an object while training."""

from __future__ import annotations

import contextlib
import functools
import os
import re
import stat
import string
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy

from catena import serializer as serializer_module, serializers
from catena.training import extension
from catena.training.extensions import snapshot_writers
from catena.utils import _validate

_DEFAULT_FILENAME = 'snapshot_iter_{.updater.iteration}'


class _SerializedTarget(dict):  # type: ignore[type-arg]
    """The flattened state of an object: full keys (``updater/iteration``) to host arrays.

    This is what the writers receive: it is taken in the training thread, so
    a writer in another thread or process sees the state of that moment, and
    it pickles as plain arrays. Its :meth:`serialize` replays the values into
    any serializer, so ``save_npz(path, state)`` and ``save_hdf5`` write the
    same file as they would for the object itself.
    """

    def serialize(self, serializer: Any) -> None:
        if not isinstance(serializer, serializer_module.Serializer):
            raise TypeError('a snapshot state can only be saved, not loaded into; load the '
                            'file into the object it was taken from')
        for key, value in self.items():
            *folders, name = key.split('/')
            child: Any = serializer
            for folder in folders:
                child = child[folder]
            if isinstance(value, numpy.ndarray) and value.dtype == serializers.NONE_DTYPE:
                value = None  # the stored form of None goes back to None for other formats
            child(name, value)


def _serialize(target: Any) -> _SerializedTarget:
    serializer = serializers.DictionarySerializer()
    serializer.save(target)
    return _SerializedTarget(serializer.target)


def _parse_pattern(pattern: str) -> list[tuple[str, str | None]]:
    try:
        return [(literal, field) for literal, field, _, _ in string.Formatter().parse(pattern)]
    except ValueError as error:
        raise ValueError(f'filename must be a valid format string, got {pattern!r}: '
                         f'{error}') from error


def _name_regex(name_pattern: str) -> re.Pattern[str]:
    parts = []
    for literal, field in _parse_pattern(name_pattern):
        parts.append(re.escape(literal))
        if field is not None:
            parts.append('.*')
    return re.compile(''.join(parts))


def _natural_key(name: str) -> tuple[Any, ...]:
    # 'iter_9' before 'iter_10': runs of digits compare as numbers.
    pieces = re.split(r'(\d+)', name)
    return tuple(int(piece) if i % 2 else piece for i, piece in enumerate(pieces))


def find_snapshot_files(pattern: str, outdir: str) -> list[str]:
    """Lists the existing files whose names ``pattern`` could have produced, oldest first.

    Every replacement field of the format string matches any text. Files
    are ordered by modification time, then by name with numbers compared as
    numbers (so equal times still put ``iter_9`` before ``iter_10``).
    Folders and the hidden temporary files of atomic writes are skipped.

    Args:
        pattern: The snapshot's ``filename`` format string (its folder part,
            if any, must be literal).
        outdir: The trainer's output folder.

    Returns:
        The file names relative to ``outdir``, oldest first.
    """
    return [name for _, name in _snapshot_entries(pattern, outdir)]


def _snapshot_entries(pattern: str, outdir: str) -> list[tuple[float, str]]:
    """``(modification time, name)`` of each file :func:`find_snapshot_files` lists."""
    head, tail = os.path.split(pattern)
    folder = os.path.join(outdir, head)
    regex = _name_regex(tail)
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    found = []
    for name in names:
        if name.startswith('.') and not tail.startswith('.'):
            continue
        if regex.fullmatch(name) is None:
            continue
        try:
            status = os.stat(os.path.join(folder, name))
        except FileNotFoundError:
            continue  # removed meanwhile
        if stat.S_ISREG(status.st_mode):
            found.append((status.st_mtime_ns, _natural_key(name), name, status.st_mtime))
    found.sort()
    return [(mtime, os.path.join(head, name)) for _, _, name, mtime in found]


# Chainer's internal names for the same searches.
def _find_snapshot_files(pattern: str, outdir: str) -> list[tuple[float, str]]:
    return _snapshot_entries(pattern, outdir)


def _find_latest_snapshot(pattern: str, outdir: str) -> str | None:
    names = find_snapshot_files(pattern, outdir)
    return names[-1] if names else None


def _find_stale_snapshots(pattern: str, outdir: str, n_retains: int) -> Iterator[str]:
    names = find_snapshot_files(pattern, outdir)
    yield from names[:max(len(names) - n_retains, 0)]


def _remove_stale_snapshots(pattern: str, outdir: str, n_retains: int) -> None:
    for name in _find_stale_snapshots(pattern, outdir, n_retains):
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(outdir, name))


def _always_true() -> bool:
    return True


class _Snapshot(extension.Extension):
    """Saves the state of the trainer (or of a target object) through a writer.

    Made by :func:`snapshot` and :func:`snapshot_object`, which document
    the arguments.
    """

    trigger: Any = (1, 'epoch')
    priority = -100

    def __init__(self, target: Any = None, condition: Callable[[], Any] | None = None,
                 writer: Callable[[str, str, Any], Any] | None = None,
                 filename: str | Callable[[Any], str] = _DEFAULT_FILENAME,
                 snapshot_on_error: bool = False, n_retains: int = -1,
                 autoload: bool = False) -> None:
        if condition is None:
            condition = _always_true
        if not callable(condition):
            raise TypeError(f'snapshot: condition must be callable or None; got '
                            f'{_validate.show(condition)}')
        if writer is None:
            writer = snapshot_writers.SimpleWriter()
        if not callable(writer):
            raise TypeError(f'snapshot: writer must be callable or None; got '
                            f'{_validate.show(writer)}')
        n_retains = _validate.integer('snapshot', 'n_retains', n_retains, None)
        if isinstance(filename, str):
            _parse_pattern(filename)
            fields = [field for _, field in _parse_pattern(os.path.split(filename)[0])
                      if field is not None]
            if fields and (autoload or n_retains > 0):
                raise ValueError('snapshot: autoload and n_retains need a literal folder in '
                                 f'filename; got {filename!r}')
        elif callable(filename):
            if autoload or n_retains > 0:
                raise ValueError('snapshot: autoload and n_retains find the snapshots by the '
                                 'format string filename; a callable filename cannot be used '
                                 'with them')
        else:
            raise TypeError(f'snapshot: filename must be a format string or a callable; got '
                            f'{_validate.show(filename)}')
        self._target = target
        self.condition = condition
        self.writer = writer
        self.filename = filename
        self._snapshot_on_error = bool(snapshot_on_error)
        self.n_retains = n_retains
        self.autoload = bool(autoload)
        self._cleaned_outdirs: set[str] = set()

    def initialize(self, trainer: Any) -> None:
        """Loads the newest snapshot (with ``autoload``) and sets up the cleanup of old ones."""
        if self.autoload:
            self._load_newest(trainer.out, self._target_of(trainer))
        add_cleanup_hook = getattr(self.writer, '_add_cleanup_hook', None)
        if (self.n_retains > 0 and add_cleanup_hook is not None
                and isinstance(self.filename, str) and trainer.out not in self._cleaned_outdirs):
            self._cleaned_outdirs.add(trainer.out)
            add_cleanup_hook(functools.partial(_remove_stale_snapshots, self.filename,
                                               trainer.out, self.n_retains))

    def __call__(self, trainer: Any) -> None:
        if self.condition():
            self._make_snapshot(trainer)

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        """Writes a snapshot of the failing run when ``snapshot_on_error`` is set."""
        if self._snapshot_on_error:
            self._make_snapshot(trainer)

    def finalize(self) -> None:
        """Finalizes the writer (waits for its pending writes)."""
        finalize = getattr(self.writer, 'finalize', None)
        if finalize is not None:
            finalize()

    def _target_of(self, trainer: Any) -> Any:
        return trainer if self._target is None else self._target

    def _make_snapshot(self, trainer: Any) -> None:
        state = _serialize(self._target_of(trainer))
        if callable(self.filename):
            filename = self.filename(trainer)
        else:
            filename = self.filename.format(trainer)
        self.writer(filename, trainer.out, state)

    def _load_newest(self, outdir: str, target: Any) -> str | None:
        assert isinstance(self.filename, str)
        rejected = []
        for name in reversed(find_snapshot_files(self.filename, outdir)):
            path = os.path.join(outdir, name)
            try:
                serializers.load_npz(path, target)
            except serializers.FileFormatError as error:
                if getattr(error, 'needs_unpickling', False):
                    raise  # a legacy file, not a damaged one: the user must convert it
                warnings.warn(f'autoload skips the snapshot {path!r}, which cannot be read '
                              f'({error}); trying the one before it', RuntimeWarning,
                              stacklevel=3)
                rejected.append(path)
                continue
            return path
        if rejected:
            raise serializers.FileFormatError(
                f'autoload found no readable snapshot in {outdir!r}: {rejected} are all '
                'truncated or corrupt; remove them to start the training afresh')
        return None


def snapshot(savefun: Callable[..., Any] | None = None,
             filename: str | Callable[[Any], str] = _DEFAULT_FILENAME, *,
             target: Any = None, condition: Callable[[], Any] | None = None,
             writer: Callable[[str, str, Any], Any] | None = None,
             snapshot_on_error: bool = False, n_retains: int = -1,
             autoload: bool = False) -> _Snapshot:
    """Returns a trainer extension that saves snapshots of the trainer, to resume training.

    The state of the target (the trainer by default: updater, iterators,
    optimizers, models, stop trigger and extensions) is flattened into a
    dictionary of arrays in the training loop, then handed to ``writer`` as
    ``writer(filename, trainer.out, state)``. The file is written
    atomically: a crash never leaves a partial file under a snapshot's name.
    The extension runs once per epoch by default (pass another trigger to
    :meth:`~catena.training.Trainer.extend`); its priority is -100, so it
    runs after the other extensions of the same iteration and sees their
    state.

    Args:
        savefun: The saving function, ``savefun(path, state)``
            (:func:`catena.serializers.save_npz` by default). It cannot be
            given together with ``writer``.
        filename: The file name in ``trainer.out``: a format string filled
            with the trainer (``'snapshot_iter_{.updater.iteration}'`` gives
            ``'snapshot_iter_1000'`` at iteration 1000), or a callable taking
            the trainer and returning the name.
        target: The object to save instead of the trainer.
        condition: A callable without arguments; a snapshot is written only
            when it returns True (always, by default).
        writer: The snapshot writer (see
            :mod:`catena.training.extensions.snapshot_writers`); by default a
            :class:`~catena.training.extensions.snapshot_writers.SimpleWriter`
            of ``savefun``.
        snapshot_on_error: Also write a snapshot when the training loop
            raises.
        n_retains: When positive, only the newest ``n_retains`` files matching
            ``filename`` are kept; older ones are deleted after each write
            (the writer must support post-save hooks, as the built-in ones
            do).
        autoload: Before training, load the newest file matching
            ``filename`` in ``trainer.out`` (by modification time) into the
            target with :func:`catena.serializers.load_npz`. A newest file
            that is truncated or corrupt is skipped with a warning naming it,
            and the one before is tried; if none can be read, the loading
            raises :class:`~catena.serializers.FileFormatError`. A file that
            does not fit the target raises
            :class:`~catena.serializers.KeyMismatchError`.

    Returns:
        The snapshot extension.
    """
    if savefun is not None and writer is not None:
        raise TypeError('snapshot takes savefun or writer, not both: give the saving '
                        'function to the writer instead')
    _validate.function('snapshot', 'savefun', savefun, optional=True)
    if writer is None:
        writer = snapshot_writers.SimpleWriter(
            savefun=serializers.save_npz if savefun is None else savefun)
    return _Snapshot(target=target, condition=condition, writer=writer, filename=filename,
                     snapshot_on_error=snapshot_on_error, n_retains=n_retains,
                     autoload=autoload)


def snapshot_object(target: Any, filename: str | Callable[[Any], str],
                    savefun: Callable[..., Any] | None = None, **kwargs: Any) -> _Snapshot:
    """Returns a trainer extension that saves snapshots of ``target`` (a model, an optimizer...).

    Same as :func:`snapshot` with ``target=target``.

    Args:
        target: The object to save (it defines ``serialize``).
        filename: The file name in ``trainer.out``, a format string filled
            with the trainer (``'model_epoch_{.updater.epoch}'``) or a
            callable taking the trainer.
        savefun: The saving function (:func:`catena.serializers.save_npz`
            by default).
        **kwargs: The keyword arguments of :func:`snapshot`: ``condition``,
            ``writer``, ``snapshot_on_error``, ``n_retains``, ``autoload``.

    Returns:
        The snapshot extension.
    """
    if target is None:
        raise TypeError('snapshot_object: target must be an object to save (a link, an '
                        'optimizer...); got None')
    return snapshot(savefun, filename, target=target, **kwargs)


__all__ = ['snapshot', 'snapshot_object']
