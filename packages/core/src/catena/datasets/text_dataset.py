"""Dataset of the lines of text files, read lazily."""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

from catena.dataset import dataset_mixin

_PerFile = str | Sequence[str | None] | None


class TextDataset(dataset_mixin.DatasetMixin):
    """Dataset of lines in one or more text files.

    The line offsets are indexed once; lines are read from the files on
    access, so the files are never held in memory. Each example is a line
    (with its newline), or, for several files, a tuple of the lines at the same
    position in each file (the files must have the same number of lines).
    The files stay open until :meth:`close`; a process that inherits the
    dataset (a fork, or an unpickled copy) opens its own handles.

    Args:
        paths (str or list of str): Path(s) of the text file(s).
        encoding (str or list of str): Encoding, as for :func:`open`; a list
            gives one per file.
        errors (str or list of str): Error handling, as for :func:`open`; a
            list gives one per file.
        newline (str or list of str): Newline mode, as for :func:`open`; a
            list gives one per file.
        filter_func (callable): Called with the line(s) of each position;
            positions for which it returns false are left out.
    """

    def __init__(self, paths: str | Sequence[str], encoding: _PerFile = None,
                 errors: _PerFile = None, newline: _PerFile = None,
                 filter_func: Callable[..., bool] | None = None) -> None:
        if isinstance(paths, (str, os.PathLike)):
            paths = [os.fspath(paths)]
        elif not paths:
            raise ValueError('TextDataset needs at least one text file in paths')
        self._paths = list(paths)
        self._encoding = _per_file('encoding', encoding, len(self._paths))
        self._errors = _per_file('errors', errors, len(self._paths))
        self._newline = _per_file('newline', newline, len(self._paths))
        self._lock = threading.Lock()
        self._closed = False
        self._fps: list[io.TextIOWrapper] | None = self._open()
        self._pid: int | None = os.getpid()
        try:
            self._offsets = self._index(self._fps, filter_func)
        except BaseException:
            self._close_files()
            raise

    def _open(self) -> list[io.TextIOWrapper]:
        fps: list[io.TextIOWrapper] = []
        try:
            for path, encoding, errors, newline in zip(
                    self._paths, self._encoding, self._errors, self._newline):
                fps.append(open(path, encoding=encoding, errors=errors,  # noqa: SIM115
                                newline=newline))
        except BaseException:
            for fp in fps:
                fp.close()
            raise
        return fps

    def _index(self, fps: list[io.TextIOWrapper],
               filter_func: Callable[..., bool] | None) -> list[tuple[int, ...]]:
        offsets = []
        while True:
            positions = tuple(fp.tell() for fp in fps)
            lines = [fp.readline() for fp in fps]
            ended = [not line for line in lines]
            if all(ended):
                break
            if any(ended):
                raise ValueError(
                    'TextDataset needs files with the same number of lines; '
                    f'{", ".join(self._paths)} differ')
            if filter_func is None or filter_func(*lines):
                offsets.append(positions)
        return offsets

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state['_fps'] = None
        state['_pid'] = None
        del state['_lock']
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._offsets)

    def get_example(self, idx: int) -> str | tuple[str, ...]:
        """Returns the line(s) at position ``idx``.

        Raises:
            ValueError: The dataset was closed.
        """
        offsets = self._offsets[idx]
        with self._lock:
            if self._closed:
                raise ValueError('I/O operation on a closed TextDataset')
            if self._fps is None or self._pid != os.getpid():
                self._fps = self._open()
                self._pid = os.getpid()
            lines = []
            for fp, offset in zip(self._fps, offsets):
                fp.seek(offset)
                lines.append(fp.readline())
        if len(lines) == 1:
            return lines[0]
        return tuple(lines)

    def close(self) -> None:
        """Closes the files; the dataset cannot be read afterwards.

        Every file is closed even when closing one fails; the first error
        is raised after that.
        """
        with self._lock:
            self._closed = True
            self._close_files()

    def _close_files(self) -> None:
        fps = self._fps
        if fps is None or self._pid != os.getpid():
            self._fps = None
            return
        error: BaseException | None = None
        for fp in fps:
            try:
                fp.close()
            except BaseException as exc:  # noqa: BLE001 - re-raised below
                if error is None:
                    error = exc
        if error is not None:
            raise error


def _per_file(name: str, value: _PerFile, n_files: int) -> list[str | None]:
    if value is None or isinstance(value, str):
        return [value] * n_files
    values = list(value)
    if len(values) != n_files:
        raise ValueError(f'TextDataset: {name} lists {len(values)} values for '
                         f'{n_files} file(s)')
    return values
