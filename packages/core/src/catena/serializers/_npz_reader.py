"""A pickle-free reader of NPZ archives.

Each member is read by hand: the zip entry is checked (compression method,
sizes), the ``.npy`` header is parsed as a literal (never evaluated), and,
only when the member is asked for, the data is read into a preallocated
array of exactly the size the header describes. :class:`NpzArchive` reads
every header on opening and each member's data on demand, after checking its
declared shape and dtype against the value it loads into. Nothing in the
file is ever unpickled, imported or called.

Refused with :class:`UnsafeFileError`: object arrays and any pickle payload
(except the exact bytes NumPy writes for ``numpy.asarray(None)``, which read
as None), headers longer than :data:`MAX_HEADER_BYTES`, and members whose
declared sizes are impossible for their compressed size or far beyond what
their header describes, and data with nothing to bound it past the budget
of :mod:`catena.serializers._lazy` (zip bombs).
"""

from __future__ import annotations

import ast
import contextlib
import io
import math
import os
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from typing import IO, Any, NamedTuple

import numpy
import numpy.lib.format

from catena.serializers import _lazy, _sniff, _values
from catena.serializers._errors import FileFormatError, UnsafeFileError

MAX_HEADER_BYTES = 10000  # NumPy's own limit for headers it parses safely
# Deflate cannot expand data more than about 1032 times; a member that claims
# more is lying about its size.
_MAX_DEFLATE_RATIO = 1100
_SIZE_SLACK = 1 << 16
_CHUNK = 1 << 24

_HEADER_KEYS = frozenset({'descr', 'fortran_order', 'shape'})


def _none_payload_p3(subpackage: bytes) -> bytes:
    return (b'\x80\x03cnumpy.' + subpackage + b'.multiarray\n_reconstruct\nq\x00cnumpy\n'
            b'ndarray\nq\x01K\x00\x85q\x02C\x01bq\x03\x87q\x04Rq\x05(K\x01)cnumpy\n'
            b'dtype\nq\x06X\x02\x00\x00\x00O8q\x07\x89\x88\x87q\x08Rq\t(K\x03X\x01'
            b'\x00\x00\x00|q\nNNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?tq\x0bb\x89]q\x0c'
            b'Natq\rb.')


# The pickles of ``numpy.asarray(None)`` that ``numpy.save`` writes: NumPy 1.x
# (protocol 3, as in files written by Chainer), NumPy 2.x (protocol 3, then 4).
# They are compared byte for byte; they are never unpickled.
NONE_PAYLOADS = frozenset({
    _none_payload_p3(b'core'),  # NumPy 1.x
    _none_payload_p3(b'_core'),
    b'\x80\x04\x95\x87\x00\x00\x00\x00\x00\x00\x00\x8c\x16numpy._core.multiarray\x94\x8c\x0c'
    b'_reconstruct\x94\x93\x94\x8c\x05numpy\x94\x8c\x07ndarray\x94\x93\x94K\x00\x85\x94C\x01'
    b'b\x94\x87\x94R\x94(K\x01)h\x03\x8c\x05dtype\x94\x93\x94\x8c\x02O8\x94\x89\x88\x87\x94R'
    b'\x94(K\x03\x8c\x01|\x94NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?t\x94b\x89]\x94Nat\x94b.',
})
_MAX_NONE_PAYLOAD = max(len(p) for p in NONE_PAYLOADS)


class _Header:
    __slots__ = ('dtype', 'fortran_order', 'shape', 'size')

    def __init__(self, dtype: numpy.dtype, fortran_order: bool, shape: tuple[int, ...],
                 size: int) -> None:
        self.dtype = dtype
        self.fortran_order = fortran_order
        self.shape = shape
        self.size = size  # bytes of the magic, the version and the header

    @property
    def data_bytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


def source_name(file: Any) -> str:
    """A name for ``file`` in messages: its path, or its ``name`` attribute."""
    if isinstance(file, (str, os.PathLike)):
        return repr(os.fspath(file))
    name = getattr(file, 'name', None)
    return repr(name) if isinstance(name, str) else f'<{type(file).__name__} object>'


def _read_exactly(stream: IO[bytes], n: int) -> bytes:
    data = stream.read(n)
    if len(data) != n:
        raise EOFError(f'needed {n} bytes, found {len(data)}')
    return data


def _parse_header_dict(text: str, where: str) -> tuple[numpy.dtype, bool, tuple[int, ...]]:
    try:
        header = ast.literal_eval(text)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError) as error:
        raise FileFormatError(f'{where}: unreadable .npy header: {error}') from None
    if not isinstance(header, dict) or set(header) != _HEADER_KEYS:
        raise FileFormatError(f'{where}: the .npy header is not a dict with the keys '
                              f'descr, fortran_order and shape: {text[:200]!r}')
    shape, fortran_order = header['shape'], header['fortran_order']
    if (not isinstance(shape, tuple)
            or not all(type(n) is int and n >= 0 for n in shape)):
        raise FileFormatError(f'{where}: bad shape in the .npy header: {shape!r}')
    if not isinstance(fortran_order, bool):
        raise FileFormatError(f'{where}: bad fortran_order in the .npy header: '
                              f'{fortran_order!r}')
    try:
        dtype = numpy.lib.format.descr_to_dtype(header['descr'])
    except (TypeError, ValueError, KeyError) as error:
        raise FileFormatError(f'{where}: bad descr in the .npy header: {error}') from None
    return dtype, fortran_order, shape


def _read_header(stream: IO[bytes], where: str) -> _Header:
    magic = _read_exactly(stream, 8)
    if not magic.startswith(_sniff.NPY_MAGIC):
        raise FileFormatError(f'{where} is not a .npy array')
    version = (magic[6], magic[7])
    if version == (1, 0):
        length_size, encoding = 2, 'latin1'
    elif version in ((2, 0), (3, 0)):
        length_size, encoding = 4, 'latin1' if version == (2, 0) else 'utf8'
    else:
        raise FileFormatError(f'{where}: unknown .npy format version {version}')
    (length,) = struct.unpack('<H' if length_size == 2 else '<I',
                              _read_exactly(stream, length_size))
    if length > MAX_HEADER_BYTES:
        raise UnsafeFileError(f'{where}: the .npy header is {length} bytes long; catena '
                              f'refuses headers over {MAX_HEADER_BYTES} bytes')
    try:
        text = _read_exactly(stream, length).decode(encoding)
    except UnicodeDecodeError as error:
        raise FileFormatError(f'{where}: undecodable .npy header: {error}') from None
    dtype, fortran_order, shape = _parse_header_dict(text, where)
    return _Header(dtype, fortran_order, shape, 8 + length_size + length)


def _check_entry(info: zipfile.ZipInfo, where: str) -> None:
    if info.flag_bits & 0x1:
        raise FileFormatError(f'{where} is encrypted')
    if info.compress_type == zipfile.ZIP_STORED:
        if info.file_size != info.compress_size:
            raise FileFormatError(f'{where}: stored sizes disagree ({info.file_size} and '
                                  f'{info.compress_size} bytes)')
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        if info.file_size > info.compress_size * _MAX_DEFLATE_RATIO + _SIZE_SLACK:
            raise UnsafeFileError(
                f'{where} claims {info.file_size} bytes from {info.compress_size} compressed '
                'bytes, more than deflate can produce (a zip bomb?)')
    else:
        raise FileFormatError(f'{where} uses zip compression method {info.compress_type}; '
                              'NPZ archives use stored or deflated members only')


def _check_sizes(header: _Header, declared: int, where: str) -> None:
    expected = header.size + header.data_bytes
    if declared < expected:
        raise FileFormatError(f'{where} is truncated: its header describes {expected} bytes, '
                              f'the archive holds {declared}')
    if declared > expected + _SIZE_SLACK:
        raise UnsafeFileError(f'{where} declares {declared} bytes uncompressed, but its header '
                              f'describes {expected}; refusing it (a zip bomb?)')
    if declared != expected:
        raise FileFormatError(f'{where} has {declared - expected} bytes after its data')


def _read_none_payload(stream: IO[bytes], header: _Header, declared: int, where: str) -> None:
    """Accepts exactly NumPy's pickle of ``numpy.asarray(None)``; refuses anything else."""
    refusal = (f'{where} holds an object array (a pickle); catena never unpickles. If you '
               'trust the file, convert it once with catena.serializers.convert_legacy_npz('
               'src, dst, unsafe=True)')
    payload_size = declared - header.size
    if (header.dtype != numpy.dtype(object) or header.shape != () or header.fortran_order
            or payload_size > _MAX_NONE_PAYLOAD):
        raise UnsafeFileError(refusal, needs_unpickling=True)
    payload = _read_exactly(stream, payload_size)
    if payload not in NONE_PAYLOADS or stream.read(1):
        raise UnsafeFileError(refusal, needs_unpickling=True)


def _read_data(stream: IO[bytes], header: _Header, where: str) -> numpy.ndarray:
    nbytes = header.data_bytes
    if header.dtype.itemsize == 0:
        array = numpy.zeros(header.shape, dtype=header.dtype)
    else:
        raw = numpy.empty(nbytes, dtype=numpy.uint8)
        view = raw.data
        filled = 0
        while filled < nbytes:
            count = stream.readinto(view[filled:filled + _CHUNK])  # type: ignore[attr-defined]
            if not count:
                raise FileFormatError(f'{where} is truncated: {filled} of {nbytes} data bytes')
            filled += count
        flat = raw.view(header.dtype)
        if header.fortran_order:
            array = flat.reshape(header.shape[::-1]).transpose()
        else:
            array = flat.reshape(header.shape)
    if stream.read(1):  # also makes zipfile check the CRC
        raise FileFormatError(f'{where} has bytes after its data')
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder('='))
    return array


class _Member(NamedTuple):
    info: zipfile.ZipInfo
    header: _Header | None  # None: the member holds None
    where: str


def _scan_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str) -> _Member:
    """Checks a member's entry and header (its data is not read)."""
    _check_entry(info, where)
    with archive.open(info) as stream:
        header = _read_header(stream, where)
        if header.dtype.hasobject:
            _read_none_payload(stream, header, info.file_size, where)
            return _Member(info, None, where)
        _check_sizes(header, info.file_size, where)
    if header.shape == () and header.dtype.names == (_values.NONE_FIELD,):
        return _Member(info, None, where)
    return _Member(info, header, where)


def _member_key(info: zipfile.ZipInfo, where: str) -> str:
    if not info.filename.endswith('.npy') or info.is_dir():
        raise FileFormatError(f'{where} is not a .npy array (NPZ members are named '
                              '<key>.npy)')
    return info.filename[:-4]


class NpzArchive(_lazy.LazyValues):
    """An open NPZ archive whose members are read on demand, never unpickled.

    Opening it reads the zip directory and every member's ``.npy`` header,
    and refuses pickles, zip bombs and corrupt members; no member's data is
    read until it is asked for. A member asked for with the value it loads
    into (:meth:`load_for`) is checked against that value's shape and dtype
    first, so its size is bounded by the object's. A member read without
    such a value (``archive[key]``, or a value that says nothing about its
    size, such as None) counts against a budget for the whole archive: its
    compressed size times ``catena.config.load_max_expansion`` (100 by
    default), plus 16 MiB (see :mod:`catena.serializers._lazy`). Values read
    are kept until :meth:`close`.

    Use it as a context manager, or call :meth:`close`.

    Args:
        file: A path, or a readable binary file object.

    Raises:
        UnsafeFileError: For object arrays, pickles, zip bombs and oversized
            headers.
        FileFormatError: For truncated or corrupt archives and other formats.
    """

    def __init__(self, file: Any) -> None:
        self.source = source_name(file)
        self._stream: IO[bytes] | None = None
        self._archive: zipfile.ZipFile | None = None
        self._members: dict[str, _Member] = {}
        self._declared: dict[str, _lazy.Declared] = {}
        with self._translated():
            stream: IO[bytes]
            if isinstance(file, (str, os.PathLike)):
                self._stream = stream = open(file, 'rb')
            elif hasattr(file, 'read'):
                stream = file if _seekable(file) else io.BytesIO(file.read())
            else:
                raise TypeError(f'file must be a path or a readable binary file object, '
                                f'not {type(file).__name__}')
            try:
                self._scan(stream)
            except BaseException:
                self.close()
                raise
        for key, member in self._members.items():
            header = member.header
            self._declared[key] = _lazy.Declared(
                None if header is None else header.dtype,
                () if header is None else header.shape, member.where,
                member.info.compress_size)
        self._start_budget()

    @contextlib.contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError,
                NotImplementedError, RuntimeError) as error:
            raise FileFormatError(f'{self.source} is truncated or corrupt: {error}') from None

    def _scan(self, stream: IO[bytes]) -> None:
        head = stream.read(_sniff.HEAD_SIZE)
        stream.seek(-len(head), io.SEEK_CUR)
        _sniff.check_format(head, 'zip', self.source)
        self._archive = archive = zipfile.ZipFile(stream)
        for info in archive.infolist():
            where = f'{self.source}, member {info.filename!r}'
            key = _member_key(info, where)
            if key in self._members:
                raise FileFormatError(f'{where} appears twice in the archive')
            self._members[key] = _scan_member(archive, info, where)

    def __enter__(self) -> NpzArchive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the file (if the archive opened it) and drops the values read."""
        if hasattr(self, '_values'):
            self._forget()
        if self._archive is not None:
            self._archive.close()
            self._archive = None
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    def _read_value(self, key: str, declared: _lazy.Declared) -> numpy.ndarray | None:
        member = self._members[key]
        assert member.header is not None
        if self._archive is None:
            raise ValueError(f'{self.source} is closed')
        with self._translated(), self._archive.open(member.info) as stream:
            _read_exactly(stream, member.header.size)
            return _read_data(stream, member.header, member.where)


def read_npz(file: Any, select: Callable[[str], bool] | None = None,
             ) -> tuple[dict[str, numpy.ndarray | None], list[str]]:
    """Reads an NPZ archive without unpickling anything.

    Every member's header is checked; the data of the members that ``select``
    accepts is read in full, within the budget :class:`NpzArchive` describes.

    Args:
        file: A path, or a readable binary file object.
        select: Which keys to read (all when None).

    Returns:
        The selected keys mapped to arrays (None for a stored None), and the
        keys of every member in archive order.

    Raises:
        UnsafeFileError: For object arrays, pickles, zip bombs and oversized
            headers.
        FileFormatError: For truncated or corrupt archives and other formats.
    """
    with NpzArchive(file) as archive:
        keys = list(archive)
        entries = {key: archive[key] for key in keys if select is None or select(key)}
    return entries, keys


def _seekable(file: Any) -> bool:
    seekable = getattr(file, 'seekable', None)
    return bool(seekable and seekable())


__all__ = ['MAX_HEADER_BYTES', 'NONE_PAYLOADS', 'NpzArchive', 'read_npz', 'source_name']
