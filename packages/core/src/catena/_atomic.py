"""Writing files atomically: into a temporary beside the destination, synced, then renamed.

Readers of the destination see the old file or the complete new one, never a
partial one; a failed or interrupted write leaves the destination as it was.
Used by the serializers, the snapshot writers, the reporting extensions and
the dataset cache.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Iterator
from typing import Any


def _create_temporary(folder: str, name: str) -> str:
    # Created like open(..., 'w') would create it (mode 0o666 less the umask),
    # unlike tempfile.mkstemp, whose files are private (0o600).
    for _ in range(100):
        temporary = os.path.join(folder, f'.{name}.{secrets.token_hex(6)}.tmp')
        try:
            handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(handle)
        return temporary
    raise FileExistsError(f'could not create a temporary file in {folder!r}')


def fsync_file(path: str) -> None:
    """Flushes the file at ``path`` to disk."""
    # Writable: Windows flushes only handles opened for writing.
    fd = os.open(path, os.O_RDWR | getattr(os, 'O_BINARY', 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_folder(folder: str) -> None:
    """Flushes a folder's entries (a rename in it) to disk, where the system can."""
    if os.name != 'posix':
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync folders; the rename still happened
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: Any) -> Iterator[str]:
    """Gives a temporary path to write; on success it replaces ``path`` atomically.

    The temporary file sits in the same folder as ``path``. After the block it
    is flushed to disk and renamed onto ``path`` (readers see the old file or
    the complete new one, never a partial one). If the block raises, the
    temporary file is removed and ``path`` is left as it was.

    Args:
        path: The destination (a str or path-like object).

    Yields:
        The temporary file's path (the file exists and is empty).
    """
    destination = os.path.abspath(os.fspath(path))
    folder, name = os.path.split(destination)
    temporary = _create_temporary(folder, name)
    try:
        yield temporary
        fsync_file(temporary)
        with contextlib.suppress(FileNotFoundError):  # keep an existing file's mode
            os.chmod(temporary, stat.S_IMODE(os.stat(destination).st_mode))
        os.replace(temporary, destination)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(temporary)
        raise
    fsync_folder(folder)


@contextlib.contextmanager
def atomic_named_path(path: Any) -> Iterator[str]:
    """Like :func:`atomic_path`, for writers that need the destination's file name.

    The temporary path has the same name as ``path``, inside a new hidden
    folder beside it (some writers derive things from the name, such as
    ``numpy.savez`` its suffix). The folder is removed afterwards.

    Args:
        path: The destination (a str or path-like object).

    Yields:
        The temporary path (nothing exists there yet).

    Raises:
        FileNotFoundError: If the block wrote no file at the temporary path.
    """
    destination = os.path.abspath(os.fspath(path))
    folder, name = os.path.split(destination)
    temporary_folder = tempfile.mkdtemp(prefix=f'.tmp-{name}-', dir=folder)
    try:
        temporary = os.path.join(temporary_folder, name)
        yield temporary
        if not os.path.isfile(temporary):
            raise FileNotFoundError(f'the writer wrote no file at {temporary!r}, so '
                                    f'{destination!r} is not written')
        fsync_file(temporary)
        os.replace(temporary, destination)
        fsync_folder(folder)
    finally:
        shutil.rmtree(temporary_folder, ignore_errors=True)


__all__ = ['atomic_named_path', 'atomic_path', 'fsync_file', 'fsync_folder']
