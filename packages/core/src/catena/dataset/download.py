"""Dataset download and cache management.

Files are cached under the dataset root, ``~/.catena/dataset`` by default. The root
comes from ``CATENA_DATASET_ROOT`` (or, for compatibility, ``CHAINER_DATASET_ROOT``)
when the module is imported, and can be changed with :func:`set_dataset_root`.

Environment settings read on every download:

``CATENA_DATASET_MIRROR``
    A base URL that replaces the origin of every *known* file (the files the
    built-in datasets register with :func:`register_known_file`). A known file
    registered under dataset key ``KEY`` with file name ``NAME`` is fetched from
    ``<mirror>/KEY/NAME`` (one slash is inserted; a trailing slash on the mirror
    is ignored). For example, with ``CATENA_DATASET_MIRROR=https://m.example/d``
    MNIST's ``http://yann.lecun.com/exdb/mnist/train-images-idx3-ubyte.gz`` is
    fetched from ``https://m.example/d/mnist/train-images-idx3-ubyte.gz``. The
    cache location and the checksum stay those of the original URL. URLs that are
    not registered are fetched unchanged.
``CATENA_OFFLINE``
    When ``1`` (or ``true``/``yes``), nothing is downloaded and no socket is
    opened: a file missing from the cache raises :class:`DatasetOfflineError`
    naming the file, its SHA-256, its URL and the path where to put it.

Integrity: a known file is checked against its SHA-256 before each use. A file
for which only an MD5 or a SHA-1 is published is checked against that on
download; its SHA-256 is then recorded beside the cached file (``<file>.sha256``)
and checked before each later use. A mismatching download is deleted and never
cached.

Concurrency: each cached file has a lock (``<file>.lock``, ``fcntl.flock`` or
``msvcrt.locking``) held while it is downloaded, so processes that ask for the
same file at once download it once. The data is written to ``<file>.part`` in
the cache directory and moved into place with :func:`os.replace`. An interrupted
transfer leaves ``<file>.part``, which the next attempt resumes with an HTTP
``Range`` request when the server honours it.

Time limits: each connection and each read waits at most
``catena.config.download_timeout`` seconds (30 by default; environment variable
``CATENA_DOWNLOAD_TIMEOUT`` or ``CHAINER_DOWNLOAD_TIMEOUT``) for the server, and
a download gives up, retries included, after ``catena.config.download_deadline``
seconds (600 by default; ``CATENA_DOWNLOAD_DEADLINE`` or
``CHAINER_DOWNLOAD_DEADLINE``; a read already waiting may overrun it by one
timeout), so a server that accepts and never answers, or trickles, cannot
stall a program for longer. The error says which to raise for a slow link.

Damaged caches: a cached ``.npz`` is read with catena's own reader (never
unpickled, bounded in memory, see :func:`load_npz_cache`); a truncated or
corrupt cache file raises :class:`~catena.serializers.FileFormatError` naming
the file and saying to delete it, which makes the next run fetch and build it
again.

The HTTP client is ``requests`` when installed, :mod:`urllib` otherwise.
"""

from __future__ import annotations

import dataclasses
import hashlib
import http.client
import os
import sys
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from typing import IO, Any, TypeVar

from catena import _atomic, configuration
from catena.serializers import _npz_reader
from catena.serializers._errors import FileFormatError, UnsafeFileError

_fcntl: Any
_msvcrt: Any
_requests: Any
try:  # pragma: no cover - platform dependent
    import fcntl as _fcntl
except ImportError:  # pragma: no cover
    _fcntl = None
try:  # pragma: no cover - platform dependent
    import msvcrt as _msvcrt  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover
    _msvcrt = None

# requests is optional, and imported on the first download (it costs ~50 ms):
# the module, None where it is missing, or _NOT_LOADED before the first use.
_NOT_LOADED: Any = object()
_requests = _NOT_LOADED


def _http_client() -> Any:
    """Returns the ``requests`` module, or None to use :mod:`urllib`."""
    global _requests
    if _requests is _NOT_LOADED:
        try:
            import requests  # type: ignore[import-untyped,unused-ignore]
        except ImportError:  # pragma: no cover - depends on the environment
            _requests = None
        else:
            _requests = requests
    return _requests

_T = TypeVar('_T')

_CHUNK = 1 << 16
_RETRIES = 5


def _default_root() -> str:
    env = os.environ.get('CATENA_DATASET_ROOT') or os.environ.get('CHAINER_DATASET_ROOT')
    if env:
        return env
    return os.path.join(os.path.expanduser('~'), '.catena', 'dataset')


_dataset_root = _default_root()


class DownloadError(OSError):
    """A file could not be downloaded or failed its integrity check."""


class DatasetOfflineError(DownloadError):
    """A file is missing from the cache while offline mode is on."""


@dataclasses.dataclass(frozen=True)
class KnownFile:
    """A downloadable file with its published checksum.

    Attributes:
        url: The original URL (also the cache key).
        key: Dataset key used for the mirror layout (``<mirror>/<key>/<name>``).
        name: File name used for the mirror layout and in messages.
        sha256: Published SHA-256, or ``None`` when only a weaker hash is known.
        md5: Published MD5, or ``None``.
        sha1: Published SHA-1, or ``None``.
    """

    url: str
    key: str
    name: str
    sha256: str | None = None
    md5: str | None = None
    sha1: str | None = None

    def weak_digests(self) -> dict[str, str]:
        """The published MD5 and SHA-1 that are known, keyed by hashlib name."""
        return _weak_digests(self.md5, self.sha1)


def _weak_digests(md5: str | None, sha1: str | None) -> dict[str, str]:
    return {name: value.lower() for name, value in (('md5', md5), ('sha1', sha1)) if value}


_known_files: dict[str, KnownFile] = {}


def register_known_file(
        url: str, key: str, *, sha256: str | None = None, md5: str | None = None,
        sha1: str | None = None, name: str | None = None) -> KnownFile:
    """Registers a downloadable file and its checksum.

    Args:
        url: Original URL of the file.
        key: Dataset key; with a mirror set the file is fetched from
            ``<mirror>/<key>/<name>``.
        sha256: Its SHA-256 in hex, when published.
        md5: Its MD5 in hex, when only a weaker hash is published.
        sha1: Its SHA-1 in hex, when only a weaker hash is published.
        name: File name; defaults to the last component of the URL.

    Returns:
        The registered :class:`KnownFile`.
    """
    entry = KnownFile(url, key, name or url.rstrip('/').rsplit('/', 1)[-1],
                      sha256.lower() if sha256 else None, md5.lower() if md5 else None,
                      sha1.lower() if sha1 else None)
    _known_files[url] = entry
    return entry


def get_known_file(url: str) -> KnownFile | None:
    """Returns the registered entry for ``url`` or ``None``."""
    return _known_files.get(url)


def get_dataset_root() -> str:
    """Gets the path to the root directory to download and cache datasets.

    Returns:
        str: The path to the dataset root directory.
    """
    return _dataset_root


def set_dataset_root(path: str) -> None:
    """Sets the root directory to download and cache datasets.

    Args:
        path (str): Path to the new dataset root directory.
    """
    global _dataset_root
    _dataset_root = os.fspath(path)


def get_dataset_directory(dataset_name: str, create_directory: bool = True) -> str:
    """Gets the path to the directory of the given dataset.

    Args:
        dataset_name (str): Name of the dataset (may contain ``/``).
        create_directory (bool): Create the directory if it does not exist.

    Returns:
        str: Path to the dataset directory.
    """
    path = os.path.join(_dataset_root, dataset_name)
    if create_directory:
        os.makedirs(path, exist_ok=True)
    return path


def is_offline() -> bool:
    """Whether ``CATENA_OFFLINE`` asks for offline mode."""
    return os.environ.get('CATENA_OFFLINE', '').strip().lower() in ('1', 'true', 'yes', 'on')


def mirror_url(url: str) -> str:
    """Returns the URL a file is fetched from, applying ``CATENA_DATASET_MIRROR``."""
    mirror = os.environ.get('CATENA_DATASET_MIRROR', '').strip()
    entry = _known_files.get(url)
    if not mirror or entry is None:
        return url
    return f'{mirror.rstrip("/")}/{entry.key}/{entry.name}'


def _cache_path(url: str) -> str:
    root = get_dataset_directory('_dl_cache')
    return os.path.join(root, hashlib.md5(url.encode('utf-8')).hexdigest())


def file_digest(path: str, algorithm: str) -> str:
    """Returns the hex digest of a file, read in blocks.

    Args:
        path: The file.
        algorithm: A :mod:`hashlib` name, e.g. ``'sha256'`` or ``'sha1'``.

    Returns:
        str: The digest in lowercase hex.
    """
    h = hashlib.new(algorithm)
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.hexdigest()


class _FileLock:
    """An exclusive inter-process lock on ``path`` (created if needed)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd: int | None = None

    def __enter__(self) -> _FileLock:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if _fcntl is not None:
                _fcntl.flock(fd, _fcntl.LOCK_EX)
            elif _msvcrt is not None:  # pragma: no cover - Windows
                while True:
                    try:
                        _msvcrt.locking(fd, _msvcrt.LK_LOCK, 1)
                        break
                    except OSError:
                        time.sleep(0.1)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        fd = self._fd
        self._fd = None
        if fd is None:
            return
        try:
            if _fcntl is not None:
                _fcntl.flock(fd, _fcntl.LOCK_UN)
            elif _msvcrt is not None:  # pragma: no cover - Windows
                os.lseek(fd, 0, os.SEEK_SET)
                _msvcrt.locking(fd, _msvcrt.LK_UNLCK, 1)
        finally:
            os.close(fd)


class _Response:
    """A streaming HTTP response: status, total length and chunks."""

    def __init__(self, status: int, length: int | None, chunks: Iterator[bytes],
                 close: Callable[[], None]) -> None:
        self.status = status
        self.length = length
        self.chunks = chunks
        self.close = close


def _open_requests(url: str, headers: dict[str, str], timeout: float) -> _Response:
    r = _http_client().get(url, headers=headers, stream=True, timeout=timeout)
    if r.status_code == 416 or r.status_code >= 400:
        status = r.status_code
        r.close()
        if status == 416:
            return _Response(416, None, iter(()), lambda: None)
        raise DownloadError(f'could not download {url}: HTTP {status}')
    length = r.headers.get('Content-Length')
    # read1 returns what has arrived, so that the deadline is checked while a
    # server trickles; iter_content waits for whole chunks.
    read1 = getattr(r.raw, 'read1', None)
    chunks = (r.iter_content(_CHUNK) if read1 is None
              else _chunks(lambda: read1(_CHUNK, decode_content=True)))
    return _Response(r.status_code, int(length) if length is not None else None,
                     chunks, r.close)


def _chunks(read: Callable[[], bytes]) -> Iterator[bytes]:
    while True:
        block = read()
        if not block:
            return
        yield block


def _open_urllib(url: str, headers: dict[str, str], timeout: float) -> _Response:
    request = urllib.request.Request(url, headers=headers)
    try:
        resp = urllib.request.urlopen(request, timeout=timeout)  # noqa: S310
    except urllib.error.HTTPError as e:
        if e.code == 416:
            return _Response(416, None, iter(()), lambda: None)
        raise DownloadError(f'could not download {url}: HTTP {e.code}') from e

    length = resp.headers.get('Content-Length')
    return _Response(resp.status, int(length) if length is not None else None,
                     _chunks(lambda: resp.read1(_CHUNK)), resp.close)


def _open(url: str, start: int, timeout: float) -> _Response:
    headers = {'User-Agent': 'catena-dataset-downloader'}
    if start > 0:
        headers['Range'] = f'bytes={start}-'
    if _http_client() is not None:
        return _open_requests(url, headers, timeout)
    return _open_urllib(url, headers, timeout)


def download_timeout() -> float:
    """Seconds a connection or a read waits for the server (``config.download_timeout``)."""
    return float(configuration.config.download_timeout)


def download_deadline() -> float:
    """Seconds one download may take, retries included (``config.download_deadline``)."""
    return float(configuration.config.download_deadline)


_LIMITS_HINT = ('raise catena.config.download_timeout (environment variable '
                'CATENA_DOWNLOAD_TIMEOUT, now {timeout:g} s: how long a connection or a read '
                'waits for the server) or catena.config.download_deadline '
                '(CATENA_DOWNLOAD_DEADLINE, now {deadline:g} s: how long a download may take, '
                'retries included) for a slow server')


def _is_timeout(error: BaseException | None) -> bool:
    seen = 0
    while error is not None and seen < 8:
        if isinstance(error, TimeoutError) or 'timed out' in str(error).lower():
            return True
        reason = getattr(error, 'reason', None)
        if isinstance(reason, BaseException) and _is_timeout(reason):
            return True
        error = error.__cause__ or error.__context__
        seen += 1
    return False


class _Clock:
    """The overall deadline of one download."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.timeout = download_timeout()
        self.deadline = download_deadline()
        self._end = time.monotonic() + self.deadline

    def remaining(self) -> float:
        return self._end - time.monotonic()

    def next_timeout(self) -> float:
        """The timeout of the next request: the configured one, within the deadline."""
        return max(min(self.timeout, self.remaining()), 0.01)

    def check(self, last_error: BaseException | None = None) -> None:
        if self.remaining() > 0:
            return
        detail = f' (last error: {last_error})' if last_error is not None else ''
        raise DownloadError(
            f'could not download {self.url} within the overall deadline of '
            f'{self.deadline:g} s{detail}; '
            + _LIMITS_HINT.format(timeout=self.timeout, deadline=self.deadline)) from last_error


class _Progress:
    def __init__(self, stream: IO[str] | None, name: str) -> None:
        self.stream = stream
        self.name = name
        self._last = 0.0

    def update(self, done: int, total: int | None, final: bool = False) -> None:
        if self.stream is None:
            return
        now = time.monotonic()
        if not final and now - self._last < 0.2:
            return
        self._last = now
        if total:
            width = 30
            filled = min(width, done * width // total)
            bar = '#' * filled + '.' * (width - filled)
            text = f'\r{self.name} [{bar}] {done / 2**20:.1f}/{total / 2**20:.1f} MiB'
        else:
            text = f'\r{self.name} {done / 2**20:.1f} MiB'
        self.stream.write(text + ('\n' if final else ''))
        self.stream.flush()


def _network_error_types() -> tuple[type[BaseException], ...]:
    errors: tuple[type[BaseException], ...] = (
        OSError, urllib.error.URLError, http.client.HTTPException)
    client = _http_client()
    if client is not None:
        errors += (client.exceptions.RequestException,)
        try:
            import urllib3.exceptions
        except ImportError:  # pragma: no cover - requests depends on it
            pass
        else:
            errors += (urllib3.exceptions.HTTPError,)
    return errors


def _fetch(url: str, part: str, progress: _Progress) -> None:
    """Downloads ``url`` into ``part``, resuming what ``part`` already holds."""
    errors = _network_error_types()
    clock = _Clock(url)
    last_error: BaseException | None = None
    for attempt in range(_RETRIES):
        clock.check(last_error)
        start = os.path.getsize(part) if os.path.exists(part) else 0
        try:
            resp = _open(url, start, clock.next_timeout())
        except DownloadError:
            raise
        except errors as e:
            last_error = e
            if attempt + 1 < _RETRIES:
                time.sleep(min(0.2 * (attempt + 1), max(clock.remaining(), 0.0)))
            continue
        try:
            if resp.status == 416:
                # The requested range starts at or past the end: the part is complete.
                return
            if resp.status == 206:
                mode, done = 'ab', start
            else:
                mode, done = 'wb', 0
            total = done + resp.length if resp.length is not None else None
            with open(part, mode) as f:
                try:
                    for block in resp.chunks:
                        f.write(block)
                        done += len(block)
                        progress.update(done, total)
                        clock.check()
                except DownloadError:
                    raise
                except errors as e:
                    last_error = e
                    continue
            if total is not None and done < total:
                last_error = DownloadError(
                    f'transfer of {url} ended at {done} of {total} bytes')
                continue
            progress.update(done, total, final=True)
            return
        finally:
            resp.close()
    hint = ''
    if _is_timeout(last_error):
        hint = '; the server did not answer in time: ' + _LIMITS_HINT.format(
            timeout=clock.timeout, deadline=clock.deadline)
    raise DownloadError(
        f'could not download {url} after {_RETRIES} attempts: {last_error}{hint}'
    ) from last_error


_DIGEST_NAMES = {'sha256': 'SHA-256', 'md5': 'MD5', 'sha1': 'SHA-1'}


def _verify(path: str, url: str, sha256: str | None, weak: dict[str, str]) -> None:
    name = os.path.basename(url)
    expected = {'sha256': sha256, **weak} if sha256 is not None else weak
    for algorithm, digest in expected.items():
        got = file_digest(path, algorithm)
        if got != digest:
            raise DownloadError(
                f'{_DIGEST_NAMES[algorithm]} mismatch for {name} ({url}): expected {digest}, '
                f'got {got}; the downloaded file was deleted')


def _check_cached(path: str, url: str, sha256: str | None, weak: dict[str, str]) -> None:
    """Checks a cached file before use against its pinned or recorded SHA-256.

    A file with only an MD5 or SHA-1 and no recorded SHA-256 (one put in place
    by hand, for instance in offline mode) is checked against those and its
    SHA-256 recorded.
    """
    recorded = path + '.sha256'
    expected = sha256
    if expected is None and os.path.exists(recorded):
        with open(recorded, encoding='ascii') as f:
            expected = f.read().strip() or None
    if expected is None:
        for algorithm, digest in weak.items():
            got = file_digest(path, algorithm)
            if got != digest:
                raise DownloadError(
                    f'the cached copy of {url} at {path} does not match its '
                    f'{_DIGEST_NAMES[algorithm]} (expected {digest}, got {got}); '
                    'delete it to download it again')
        if weak:
            _atomic_write_text(recorded, file_digest(path, 'sha256') + '\n')
        return
    got = file_digest(path, 'sha256')
    if got != expected:
        raise DownloadError(
            f'the cached copy of {url} at {path} does not match its SHA-256 '
            f'(expected {expected}, got {got}); delete it to download it again')


def _atomic_write_text(path: str, text: str) -> None:
    with _atomic.atomic_named_path(path) as temp_path, \
            open(temp_path, 'w', encoding='ascii') as f:
        f.write(text)


def cached_download(url: str, *, sha256: str | None = None, md5: str | None = None,
                    sha1: str | None = None, progress: bool | None = None) -> str:
    """Downloads a file and caches it.

    The file is downloaded once per dataset root and then taken from the cache.
    Its path is ``<root>/_dl_cache/<md5 hex of the URL>``. See the module
    documentation for integrity checks, locking, resuming, the mirror and the
    offline mode.

    Args:
        url (str): URL to download from.
        sha256 (str): Expected SHA-256 in hex. Defaults to the one registered
            for ``url``, if any.
        md5 (str): Expected MD5 in hex (checked on download only; the SHA-256 of
            the file is then recorded and checked before each later use).
        sha1 (str): Expected SHA-1 in hex, checked like ``md5``.
        progress (bool): Show a progress bar on stderr. ``None`` shows it when
            stderr is a terminal.

    Returns:
        str: Path to the cached file.
    """
    entry = _known_files.get(url)
    if entry is not None:
        sha256 = sha256 or entry.sha256
        md5 = md5 or entry.md5
        sha1 = sha1 or entry.sha1
    sha256 = sha256.lower() if sha256 else None
    weak = _weak_digests(md5, sha1)
    path = _cache_path(url)
    name = entry.name if entry is not None else os.path.basename(url.rstrip('/'))
    if os.path.exists(path):
        _check_cached(path, url, sha256, weak)
        return path
    if is_offline():
        digest = sha256 or 'unknown' + ''.join(
            f' ({_DIGEST_NAMES[algorithm]} {value})' for algorithm, value in weak.items())
        raise DatasetOfflineError(
            f'offline mode (CATENA_OFFLINE) is on and {name} is not cached.\n'
            f'  file:    {name}\n  SHA-256: {digest}\n  URL:     {url}\n'
            f'Download it elsewhere and put it at: {path}')
    with _FileLock(path + '.lock'):
        if os.path.exists(path):  # another process finished it meanwhile
            _check_cached(path, url, sha256, weak)
            return path
        part = path + '.part'
        source = mirror_url(url)
        show = sys.stderr.isatty() if progress is None else progress
        try:
            _fetch(source, part, _Progress(sys.stderr if show else None, name))
        except DownloadError as e:
            if source != url:
                raise DownloadError(f'{e} (mirror of {url})') from e
            raise
        try:
            _verify(part, source, sha256, weak)
        except DownloadError as e:
            os.remove(part)
            if source != url:
                raise DownloadError(f'{e} (mirror of {url})') from None
            raise
        if sha256 is None:
            _atomic_write_text(path + '.sha256', file_digest(part, 'sha256') + '\n')
        os.replace(part, path)
    return path


def cache_or_load_file(path: str, creator: Callable[[str], _T],
                       loader: Callable[[str], _T]) -> _T:
    """Caches a file if it does not exist, or loads it otherwise.

    If ``path`` exists, ``loader(path)`` is returned. Otherwise ``creator`` is
    called with a temporary path (same base name, in a temporary directory
    next to ``path``); it must write the file there and return its content. The
    file is then moved to ``path`` atomically and the creator's result returned.
    Concurrent processes creating the same file are serialised by a lock.

    Args:
        path (str): Path to the cache file.
        creator: Function that writes the file to the given path and returns
            its content.
        loader: Function that loads the file at the given path.

    Returns:
        The object made by ``creator`` or ``loader``.
    """
    if os.path.exists(path):
        return _load_cached(path, loader)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with _FileLock(path + '.lock'):
        if os.path.exists(path):
            return _load_cached(path, loader)
        with _atomic.atomic_named_path(path) as temp_path:
            content = creator(temp_path)
    return content


def _fresh_copy_hint(path: str) -> str:
    return (f'{path!r} is a dataset cache file: delete it and run again, and catena '
            'downloads and builds a fresh copy')


def _load_cached(path: str, loader: Callable[[str], _T]) -> _T:
    try:
        return loader(path)
    except FileFormatError:
        raise
    except (zipfile.BadZipFile, EOFError) as error:
        raise FileFormatError(f'the cached file {path!r} is truncated or corrupt ({error}); '
                              + _fresh_copy_hint(path)) from None


def load_npz_cache(path: str) -> dict[str, Any]:
    """Loads a cache ``.npz`` written by a dataset.

    The file is read by catena's own NPZ reader: nothing is unpickled, and
    the arrays may expand to at most ``catena.config.load_max_expansion``
    times the file's compressed size plus 16 MiB (see
    ``docs/loading-safety.md``).

    Args:
        path (str): The cache file.

    Returns:
        dict: The arrays, by key.

    Raises:
        catena.serializers.FileFormatError: The file is truncated or
            corrupt; the message names it and says to delete it for a fresh
            copy.
        catena.serializers.UnsafeFileError: The file holds pickles or would
            expand past the bound.
    """
    try:
        entries, _ = _npz_reader.read_npz(path)
    except UnsafeFileError as error:
        raise UnsafeFileError(f'{error}\n{_fresh_copy_hint(path)}',
                              error.needs_unpickling) from None
    except FileFormatError as error:
        raise FileFormatError(f'{error}\n{_fresh_copy_hint(path)}') from None
    return dict(entries)
