"""Writing a file atomically: into a temporary file beside it, then renaming."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
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


def _fsync_path(path: str) -> None:
    fd = os.open(path, os.O_RDWR)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_folder(folder: str) -> None:
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
        _fsync_path(temporary)
        with contextlib.suppress(FileNotFoundError):  # keep an existing file's mode
            os.chmod(temporary, stat.S_IMODE(os.stat(destination).st_mode))
        os.replace(temporary, destination)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(temporary)
        raise
    _fsync_folder(folder)


__all__ = ['atomic_path']
