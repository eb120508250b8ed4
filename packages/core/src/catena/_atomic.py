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
import socket
import stat
import tempfile
import time
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


TEMPORARY_PREFIX = '.tmp-'
MARKER_NAME = '.catena-atomic-write'
_MARKER_HEAD = 'catena atomic write'
STALE_AFTER = 24 * 3600.0  # seconds, for writers on other hosts


def _write_marker(folder: str) -> None:
    with open(os.path.join(folder, MARKER_NAME), 'w', encoding='ascii') as marker:
        marker.write(f'{_MARKER_HEAD}\npid {os.getpid()}\nhost {socket.gethostname()}\n')


def _read_marker(folder: str) -> tuple[int, str] | None:
    """The pid and host in a folder's marker, or None if the folder is not ours."""
    path = os.path.join(folder, MARKER_NAME)
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        with open(path, encoding='ascii') as marker:
            lines = marker.read(512).splitlines()
    except (OSError, UnicodeError):
        return None
    if len(lines) != 3 or lines[0] != _MARKER_HEAD:
        return None
    pid_field, host_field = lines[1].split(' ', 1), lines[2].split(' ', 1)
    if (len(pid_field) != 2 or pid_field[0] != 'pid' or not pid_field[1].isdigit()
            or len(host_field) != 2 or host_field[0] != 'host'):
        return None
    return int(pid_field[1]), host_field[1]


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if os.name != 'posix':
        return True  # cannot tell without side effects; rely on the age
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, owned by someone else
    return True


def _is_stale(folder: str, stale_after: float) -> bool:
    owner = _read_marker(folder)
    if owner is None:
        return False
    pid, host = owner
    if host == socket.gethostname() and not _process_alive(pid):
        return True
    try:
        age = time.time() - os.lstat(os.path.join(folder, MARKER_NAME)).st_mtime
    except OSError:
        return False
    return age > stale_after


def remove_stale_temporaries(folder: Any, stale_after: float = STALE_AFTER) -> list[str]:
    """Removes the temporary folders that interrupted writes left in ``folder``.

    Only folders that :func:`atomic_named_path` created are touched: named
    ``.tmp-*``, holding its marker file, and left by a process of this host
    that no longer runs, or older than ``stale_after`` seconds (a writer on
    another host sharing the folder). Only the plain files directly inside
    such a folder are removed, then the folder if it is then empty; nothing
    is followed through links or removed recursively.

    Args:
        folder: The folder to clean (a missing folder is no error).
        stale_after: The age, in seconds, past which the temporaries of
            writers on other hosts (or whose liveness cannot be checked)
            count as stale.

    Returns:
        The temporary folders removed.
    """
    folder = os.fspath(folder)
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return []
    removed = []
    for entry in entries:
        if not (entry.name.startswith(TEMPORARY_PREFIX) and entry.is_dir(follow_symlinks=False)):
            continue
        if not _is_stale(entry.path, stale_after):
            continue
        with contextlib.suppress(OSError):
            for child in os.scandir(entry.path):
                if not child.is_dir(follow_symlinks=False):
                    with contextlib.suppress(FileNotFoundError):
                        os.remove(child.path)
            os.rmdir(entry.path)
            removed.append(entry.path)
    return removed


@contextlib.contextmanager
def atomic_named_path(path: Any) -> Iterator[str]:
    """Like :func:`atomic_path`, for writers that need the destination's file name.

    The temporary path has the same name as ``path``, inside a new hidden
    folder beside it, ``.tmp-<name>-<random>`` (some writers derive things
    from the name, such as ``numpy.savez`` its suffix). The folder is removed
    afterwards. It holds a marker file naming the writing process, so that
    :func:`remove_stale_temporaries` can recognise a folder that a killed
    process left behind.

    Args:
        path: The destination (a str or path-like object).

    Yields:
        The temporary path (nothing exists there yet).

    Raises:
        FileNotFoundError: If the block wrote no file at the temporary path.
    """
    destination = os.path.abspath(os.fspath(path))
    folder, name = os.path.split(destination)
    temporary_folder = tempfile.mkdtemp(prefix=f'{TEMPORARY_PREFIX}{name}-', dir=folder)
    try:
        _write_marker(temporary_folder)
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


__all__ = ['atomic_named_path', 'atomic_path', 'fsync_file', 'fsync_folder',
           'remove_stale_temporaries']
