"""Dataset of the lines of text files, read lazily."""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

from catena.dataset import dataset_mixin


class TextDataset(dataset_mixin.DatasetMixin):
    """Dataset of lines in one or more text files.

    The line offsets are indexed once; lines are read from the files on
    access, so the files are never held in memory. Each example is a line
    (with its newline), or, for several files, a tuple of the lines at the same
    position in each file (the files must have the same number of lines).
    Files are reopened in each process that uses the dataset.

    Args:
        paths (str or list of str): Path(s) of the text file(s).
        encoding (str): Encoding, as for :func:`open`.
        errors (str): Error handling, as for :func:`open`.
        newline (str): Newline mode, as for :func:`open`.
        filter_func (callable): Called with the line(s) of each position;
            positions for which it returns false are left out.
    """

    def __init__(self, paths: str | Sequence[str], encoding: str | None = None,
                 errors: str | None = None, newline: str | None = None,
                 filter_func: Callable[..., bool] | None = None) -> None:
        if isinstance(paths, (str, os.PathLike)):
            paths = [os.fspath(paths)]
        elif not paths:
            raise ValueError('TextDataset needs at least one text file in paths')
        self._paths = list(paths)
        self._encoding = encoding
        self._errors = errors
        self._newline = newline
        self._fps: list[io.TextIOWrapper] | None = None
        self._pid: int | None = None
        self._lock = threading.Lock()
        self._offsets = self._index(filter_func)

    def _open(self) -> list[io.TextIOWrapper]:
        return [open(p, encoding=self._encoding, errors=self._errors,  # noqa: SIM115
                     newline=self._newline) for p in self._paths]

    def _index(self, filter_func: Callable[..., bool] | None) -> list[tuple[int, ...]]:
        fps = self._open()
        try:
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
        finally:
            for fp in fps:
                fp.close()
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
        """Returns the line(s) at position ``idx``."""
        offsets = self._offsets[idx]
        with self._lock:
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
        """Closes the files (they are reopened on the next access)."""
        with self._lock:
            if self._fps is not None:
                for fp in self._fps:
                    fp.close()
                self._fps = None
