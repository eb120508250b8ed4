"""Datasets stored as a sequence of pickles in one file (opt-in, unsafe).

.. warning::
   Reading an example unpickles it, and unpickling can run arbitrary code. Use
   :class:`PickleDataset` only on files you wrote yourself or fully trust;
   never on files from an untrusted source. No built-in dataset loader of
   catena uses this module. Indexing a file walks its pickle opcodes with
   :mod:`pickletools` and executes nothing; only :meth:`PickleDataset.get_example`
   unpickles.
"""

from __future__ import annotations

import os
import pickle
import pickletools
import threading
import weakref
from typing import IO, Any

from catena.dataset import dataset_mixin


class PickleDatasetWriter:
    """Writer that appends pickled examples to a file, for :class:`PickleDataset`.

    Args:
        writer: A binary file object open for writing.
        protocol (int): Pickle protocol.
    """

    def __init__(self, writer: IO[bytes], protocol: int = pickle.HIGHEST_PROTOCOL) -> None:
        self._writer = writer
        self._protocol = protocol

    def close(self) -> None:
        """Closes the underlying file."""
        self._writer.close()

    def write(self, x: Any) -> None:
        """Appends the example ``x``."""
        pickle.dump(x, self._writer, protocol=self._protocol)

    def flush(self) -> None:
        """Flushes the underlying file."""
        self._writer.flush()

    def __enter__(self) -> PickleDatasetWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _FileReader:
    """A binary file opened by path that reopens itself after a fork or unpickling.

    A forked child gets its own handle (so that the parent's and the child's
    seeks do not interfere), and pickling sends the path, not the handle.

    Args:
        path: The file to read.
    """

    def __init__(self, path: str) -> None:
        self._path = path
        self._file: IO[bytes] = open(path, 'rb')  # noqa: SIM115

    def __getstate__(self) -> dict[str, Any]:
        return {'_path': self._path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state['_path'])  # type: ignore[misc]

    def after_fork(self) -> None:
        """Replaces the handle inherited from the parent process by a new one."""
        self._file.close()
        self._file = open(self._path, 'rb')  # noqa: SIM115

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()

    def read(self, size: int = -1) -> bytes:
        return self._file.read(size)

    def readline(self, size: int = -1) -> bytes:
        return self._file.readline(size)

    def close(self) -> None:
        self._file.close()


_live_datasets: weakref.WeakSet[PickleDataset] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for dataset in list(_live_datasets):
        dataset._after_fork()


if hasattr(os, 'register_at_fork'):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class PickleDataset(dataset_mixin.DatasetMixin):
    """Dataset of the pickles written by :class:`PickleDatasetWriter`.

    .. warning::
       Unsafe for untrusted files: getting an example unpickles it, which can
       run arbitrary code.

    A forked child process calls the reader's ``after_fork()`` method, when
    it has one, so that the reader can reopen its file. A reader that is a
    file with a ``name`` is reopened by that name in each process that uses
    the dataset. Pickling the dataset pickles the reader, except a named file,
    which is sent by name.

    Args:
        reader: A seekable binary file object open for reading.
    """

    def __init__(self, reader: IO[bytes]) -> None:
        if not reader.seekable():
            raise ValueError('PickleDataset needs a seekable reader')
        self._reader = reader
        self._pid = os.getpid()
        name = getattr(reader, 'name', None)
        self._path = name if isinstance(name, str) and os.path.isfile(name) else None
        self._lock = threading.Lock()
        self._positions: list[int] = []
        reader.seek(0)
        while True:
            position = reader.tell()
            if not reader.read(1):
                break
            reader.seek(position)
            self._positions.append(position)
            # Walks the opcodes up to STOP without building any object.
            for _ in pickletools.genops(reader):
                pass
        _live_datasets.add(self)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if self._path is not None:
            state['_reader'] = None
        state['_pid'] = None
        del state['_lock']
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        _live_datasets.add(self)

    def _after_fork(self) -> None:
        after_fork = getattr(self._reader, 'after_fork', None)
        if callable(after_fork):
            after_fork()

    def __len__(self) -> int:
        return len(self._positions)

    def get_example(self, i: int) -> Any:
        position = self._positions[i]
        with self._lock:
            if (self._reader is None or self._pid != os.getpid()) and self._path is not None:
                self._reader = open(self._path, 'rb')  # noqa: SIM115
                self._pid = os.getpid()
            self._reader.seek(position)
            return pickle.load(self._reader)  # noqa: S301 - documented as unsafe

    def close(self) -> None:
        """Closes the underlying file."""
        with self._lock:
            if self._reader is not None:
                self._reader.close()

    def __enter__(self) -> PickleDataset:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_pickle_dataset(path: str) -> PickleDataset:
    """Opens the dataset file ``path`` written by :func:`open_pickle_dataset_writer`.

    Unsafe for untrusted files (see :class:`PickleDataset`).
    """
    return PickleDataset(_FileReader(path))  # type: ignore[arg-type]


def open_pickle_dataset_writer(path: str,
                               protocol: int = pickle.HIGHEST_PROTOCOL) -> PickleDatasetWriter:
    """Opens ``path`` for writing and returns a :class:`PickleDatasetWriter` on it."""
    return PickleDatasetWriter(open(path, 'wb'), protocol=protocol)  # noqa: SIM115
