"""Saving and loading objects in HDF5 files (needs h5py: ``pip install h5py``).

The object hierarchy maps to HDF5 groups (``predictor`` / ``l1``) and each
value to a dataset (``W``). None is stored as an empty dataset (``h5py.Empty``),
as Chainer does; strings as UTF-8 string datasets.

Loading reads only what it understands: numeric, boolean and string
datasets through hard links. External links, external or virtual storage,
filter plugins, object references and datasets far larger than the bytes
stored for them raise :class:`~catena.serializers.UnsafeFileError`.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
from collections.abc import Iterator, Mapping
from typing import Any

import numpy

from catena._atomic import atomic_path
from catena.serializer import Serializer
from catena.serializers import _lazy, _npz_reader, _sniff, _values
from catena.serializers._errors import FileFormatError, UnsafeFileError
from catena.serializers._loading import (
    MappingDeserializer,
    StoredValueDeserializer,
    load_transactionally,
)

# Filters built into HDF5 (deflate, shuffle, fletcher32, szip, nbit,
# scaleoffset) and h5py's own LZF; any other id would load a filter plugin.
_BUILTIN_FILTERS = frozenset({1, 2, 3, 4, 5, 6, 32000})
_MAX_DEPTH = 64
_MAX_EXPANSION = 1100  # gzip cannot expand data more than about 1032 times
_EXPANSION_FLOOR = 1 << 20


class H5pyMissingError(ImportError, RuntimeError):
    """h5py cannot be imported, so the HDF5 serializers cannot work.

    It is an :class:`ImportError` and, as Chainer raised in this case, a
    :class:`RuntimeError`.
    """


@functools.cache
def _h5py() -> Any:
    try:
        import h5py
    except ImportError as error:
        raise H5pyMissingError('the HDF5 serializers need h5py; install it with '
                               'pip install h5py') from error
    return h5py


def __getattr__(name: str) -> Any:
    # Chainer's flag: whether h5py can be imported. It is computed on first
    # read so that importing catena does not import h5py.
    if name == '_available':
        try:
            _h5py()
        except ImportError:
            return False
        return True
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


def _to_dataset(h5py: Any, key: str, value: Any, compression: Any) -> tuple[Any, Any, Any]:
    """Returns (data, dtype, compression) for ``create_dataset``."""
    array = _values.to_storable(key, value)
    if _values.is_none_marker(array):
        return h5py.Empty('f'), None, None
    if array.dtype.kind == 'U':
        strings = numpy.array(array.tolist(), dtype=object)
        return strings, h5py.string_dtype('utf-8'), None
    return array, None, (None if array.size <= 1 else compression)


class HDF5Serializer(Serializer):
    """Serializer that writes into an HDF5 group.

    Args:
        group (h5py.Group): The group this serializer writes into.
        compression (int): The gzip level (0-9) of non-scalar datasets, or
            None for no compression.
    """

    def __init__(self, group: Any, compression: int | None = 4) -> None:
        _h5py()
        self.group = group
        self.compression = compression

    def __getitem__(self, key: str) -> HDF5Serializer:
        return HDF5Serializer(self.group.require_group(key.strip('/')), self.compression)

    def __call__(self, key: str, value: Any) -> Any:
        h5py = _h5py()
        key = key.lstrip('/')
        data, dtype, compression = _to_dataset(h5py, f'{self.group.name}/{key}', value,
                                               self.compression)
        self.group.create_dataset(key, data=data, dtype=dtype, compression=compression)
        return value


def _check_dataset(h5py: Any, dataset: Any, where: str) -> None:
    if dataset.external:
        raise UnsafeFileError(f'{where} keeps its data in external files; refused')
    if dataset.is_virtual:
        raise UnsafeFileError(f'{where} is a virtual dataset (data from other files); refused')
    plist = dataset.id.get_create_plist()
    for index in range(plist.get_nfilters()):
        code = plist.get_filter(index)[0]
        if code not in _BUILTIN_FILTERS:
            raise UnsafeFileError(f'{where} needs HDF5 filter plugin {code}; catena reads '
                                  'only the built-in filters')
    if h5py.check_string_dtype(dataset.dtype) is None and dataset.dtype.hasobject:
        raise UnsafeFileError(f'{where} holds references or variable-length objects; '
                              'catena reads numbers, booleans and strings')
    nbytes = math.prod(dataset.shape) * dataset.dtype.itemsize
    stored = dataset.id.get_storage_size()
    if nbytes > _EXPANSION_FLOOR and nbytes > stored * _MAX_EXPANSION:
        raise UnsafeFileError(f'{where} describes {nbytes} bytes but stores {stored}; '
                              'refusing it (a decompression bomb?)')


def _read_dataset(h5py: Any, dataset: Any, where: str) -> numpy.ndarray | None:
    if dataset.shape is None:  # an empty dataspace: Chainer's None
        return None
    _check_dataset(h5py, dataset, where)
    info = h5py.check_string_dtype(dataset.dtype)
    if info is not None and info.length is None:
        return numpy.array(dataset.asstr()[()], dtype=str)
    array = numpy.empty(dataset.shape, dtype=dataset.dtype)
    if array.size:
        dataset.read_direct(array)
    return array


def _hard_child(h5py: Any, group: Any, name: str, where: str) -> Any:
    link = group.get(name, getlink=True)
    if link is None:
        return None
    if not isinstance(link, h5py.HardLink):
        raise UnsafeFileError(f'{where} is a {type(link).__name__}; catena follows only '
                              'hard links')
    return group[name]


class HDF5Deserializer(StoredValueDeserializer):
    """Deserializer that reads from an HDF5 group.

    Behaves as :class:`~catena.serializers.NpzDeserializer` does: arrays are
    filled in place, scalars converted, None loaded from empty datasets; and
    :meth:`load` checks everything before loading anything.

    Args:
        group (h5py.Group): The group to read from.
        path: The group path under ``group`` to load from, ending with ``/``
            ('updater/model:main/').
        strict: If True, a missing key raises :class:`KeyError`; if False,
            missing keys are skipped. Dtypes are cast either way, as
            :func:`~catena.serializers.load_npz` describes.
        ignore_names: A key, a callable ``key -> bool``, or a list of them:
            full keys whose values are never loaded.

    Attributes:
        group (h5py.Group): The group given; for a child made by
            ``deserializer['name']``, the subgroup it reads (None if the
            file lacks it).
    """

    def __init__(self, group: Any, path: str = '', strict: bool = True,
                 ignore_names: Any = None) -> None:
        _h5py()
        self._root = group
        self.group = group
        self._init_context(path, strict, ignore_names, _file_name(group))

    def _child(self, path: str) -> StoredValueDeserializer:
        child = object.__new__(type(self))
        child._root = self._root
        child.path = path
        # As in Chainer, a child's ``group`` is the group it reads from (None
        # while that group does not exist); keys still resolve from the root.
        node = self._resolve(path)
        child.group = node if isinstance(node, _h5py().Group) else None
        return child

    def _where(self, key: str) -> str:
        return f'{self._context.source}, {key!r}'

    def _resolve(self, key: str) -> Any:
        h5py = _h5py()
        node = self._root
        for name in key.strip('/').split('/'):
            if not isinstance(node, h5py.Group):
                return None
            node = _hard_child(h5py, node, name, self._where(key))
            if node is None:
                return None
        return node

    def _contains(self, key: str) -> bool:
        return isinstance(self._resolve(key), _h5py().Dataset)

    def _get(self, key: str) -> numpy.ndarray | None:
        return _read_dataset(_h5py(), self._resolve(key), self._where(key))

    def _read_all(self, path: str) -> Mapping[str, numpy.ndarray | None]:
        return _HDF5Values(self, path)


    @classmethod
    def _snapshot_type(cls) -> type[MappingDeserializer]:
        return _ReadHDF5Deserializer


class _HDF5Values(_lazy.LazyValues):
    """The datasets under a path, each read when the load asks for it.

    Finding them checks each one (links, storage, filters, dtype, size) from
    its metadata; no data is read until the load asks for the value.
    """

    def __init__(self, deserializer: HDF5Deserializer, path: str) -> None:
        self.source = deserializer._context.source
        self._where = deserializer._where
        self._nodes: dict[str, Any] = {}
        self._declared = {}
        h5py = _h5py()
        with _corrupt_is_format_error(self.source):
            start = deserializer._resolve(path) if path.strip('/') else deserializer._root
            if isinstance(start, h5py.Group):
                self._collect(h5py, start, path, 0)
        self._start_budget()

    def _collect(self, h5py: Any, group: Any, prefix: str, depth: int) -> None:
        if depth > _MAX_DEPTH:
            raise FileFormatError(f'{self._where(prefix)}: groups nest deeper than '
                                  f'{_MAX_DEPTH} levels (a cycle?)')
        for name in group:
            key = prefix + name
            node = _hard_child(h5py, group, name, self._where(key))
            if isinstance(node, h5py.Group):
                self._collect(h5py, node, key + '/', depth + 1)
            elif isinstance(node, h5py.Dataset):
                self._nodes[key] = node
                self._declared[key] = self._declare(h5py, node, key)

    def _declare(self, h5py: Any, node: Any, key: str) -> _lazy.Declared:
        where = self._where(key)
        if node.shape is None:  # an empty dataspace: Chainer's None
            return _lazy.Declared(None, (), where, 0)
        _check_dataset(h5py, node, where)
        info = h5py.check_string_dtype(node.dtype)
        # Variable-length strings live uncompressed in the file's heap.
        dtype = numpy.dtype('U') if info is not None and info.length is None else node.dtype
        return _lazy.Declared(dtype, tuple(node.shape), where,
                              int(node.id.get_storage_size()))

    def _read_value(self, key: str, declared: _lazy.Declared) -> numpy.ndarray | None:
        with _corrupt_is_format_error(self.source):
            return _read_dataset(_h5py(), self._nodes[key], declared.where)


@contextlib.contextmanager
def _corrupt_is_format_error(source: str) -> Iterator[None]:
    try:
        yield
    except FileFormatError:
        raise
    except (OSError, KeyError, ValueError) as error:
        raise FileFormatError(f'{source} is corrupt: {error}') from None


class _ReadHDF5Deserializer(MappingDeserializer, HDF5Deserializer):
    """An :class:`HDF5Deserializer` over datasets already read (the file is closed)."""

    group = None

    def __init__(self, npz: Any, path: str = '', strict: bool = True,
                 ignore_names: Any = None) -> None:
        MappingDeserializer.__init__(self, npz, path, strict, ignore_names)


def _file_name(group: Any) -> str:
    name = getattr(getattr(group, 'file', None), 'filename', None)
    return repr(name) if isinstance(name, str) else 'the HDF5 group'


def save_hdf5(filename: Any, obj: Any, compression: int | None = 4) -> None:
    """Saves an object to an HDF5 file.

    A path is written atomically (a temporary file in the same folder, then a
    rename); on failure no file is left behind and an existing one is kept.

    Args:
        filename: A path, or a writable binary file object.
        obj: An object that defines ``serialize(serializer)``.
        compression: The gzip level (0-9) of non-scalar datasets, or None.
    """
    h5py = _h5py()
    if isinstance(filename, (str, os.PathLike)):
        with atomic_path(filename) as temporary, h5py.File(temporary, 'w') as file:
            HDF5Serializer(file, compression).save(obj)
        return
    with h5py.File(filename, 'w') as file:
        HDF5Serializer(file, compression).save(obj)


def _check_signature(filename: Any, source: str) -> None:
    if isinstance(filename, (str, os.PathLike)):
        with open(filename, 'rb') as stream:
            head = stream.read(_sniff.HEAD_SIZE)
    else:
        position = filename.tell()
        head = filename.read(_sniff.HEAD_SIZE)
        filename.seek(position)
    _sniff.check_format(head, 'hdf5', source)


def load_hdf5(filename: Any, obj: Any, path: str = '', strict: bool = True,
              ignore_names: Any = None) -> None:
    """Loads an object from an HDF5 file, or raises and leaves it unchanged.

    Every value the object asks for is checked against the object before
    anything is loaded, as :func:`~catena.serializers.load_npz` does; a
    dataset is read only once its shape and dtype fit the object's value, and
    datasets the object never asks for are not read.

    Args:
        filename: A path, or a readable binary file object.
        obj: The object to load into (defines ``serialize(serializer)``).
        path: The group path to load from ('updater/model:main/').
        strict: As for :func:`~catena.serializers.load_npz`.
        ignore_names: As for :func:`~catena.serializers.load_npz`.

    Raises:
        UnsafeFileError: The file uses external links or storage, filter
            plugins, object references, or describes far more data than it
            stores.
        FileFormatError: The file is not HDF5 (the message says what to call
            instead) or is corrupt.
        KeyMismatchError: The file does not fit the object.
    """
    h5py = _h5py()
    source = _npz_reader.source_name(filename)
    _check_signature(filename, source)
    try:
        file = h5py.File(filename, 'r')
    except OSError as error:
        raise FileFormatError(f'{source} is truncated or corrupt: {error}') from None
    with file:
        deserializer = HDF5Deserializer(file, path, strict, ignore_names)
        deserializer._context.source = source
        entries = deserializer._read_all(path)
        load_transactionally(entries, obj, path, strict, ignore_names, source,
                             _ReadHDF5Deserializer)


__all__ = ['H5pyMissingError', 'HDF5Deserializer', 'HDF5Serializer', 'load_hdf5', 'save_hdf5']
