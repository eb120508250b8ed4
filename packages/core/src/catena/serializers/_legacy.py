"""Converting legacy NPZ files that hold pickles into safe catena NPZ files."""

from __future__ import annotations

import io
import os
from typing import Any

import numpy

from catena.serializers import _npz_reader, _npz_writer, _sniff, _values
from catena.serializers._errors import FileFormatError, UnsafeFileError

_SCALARS = (bool, int, float, complex, str, bytes, numpy.generic)


def _convert_object_array(key: str, array: numpy.ndarray, source: str) -> numpy.ndarray:
    if array.shape == ():
        item = array[()]
        if item is None:
            return _values.none_marker()
        if isinstance(item, _SCALARS):
            return _values.to_storable(key, item)
        raise ValueError(f'{source}: {key!r} holds a {type(item).__name__} object, which '
                         'catena cannot store without pickle; convert it yourself')
    try:
        return _values.to_storable(key, array.tolist())
    except TypeError as error:
        raise ValueError(f'{source}: {key!r} holds Python objects that catena cannot store '
                         f'without pickle ({error})') from None


def _read_unsafely(file: Any, source: str) -> dict[str, numpy.ndarray]:
    if isinstance(file, (str, os.PathLike)):
        with open(file, 'rb') as stream:
            data = stream.read()
    else:
        data = file.read()
    _sniff.check_format(data[:_sniff.HEAD_SIZE], 'zip', source)
    arrays: dict[str, numpy.ndarray] = {}
    with numpy.load(io.BytesIO(data), allow_pickle=True) as archive:
        for key in archive.files:
            array = archive[key]
            if not isinstance(array, numpy.ndarray):
                raise FileFormatError(f'{source}: member {key!r} is not a .npy array')
            if array.dtype.hasobject:
                array = _convert_object_array(key, array, source)
            arrays[key] = array
    return arrays


def convert_legacy_npz(src: Any, dst: Any, *, unsafe: bool = False,
                       compression: bool = True) -> list[str]:
    """Rewrites an NPZ file that holds pickles as a catena NPZ file without them.

    NPZ files written by Chainer (or by ``numpy.savez``) may hold object arrays,
    which only unpickling can read, and unpickling a file can run any code
    its author chose. :func:`~catena.serializers.load_npz` therefore refuses
    them. For a file you trust, this converter unpickles it once, when you
    pass ``unsafe=True``, and writes a file that :func:`load_npz` reads:
    a pickled None becomes catena's None, pickled scalars and strings become
    arrays; any other Python object is an error.

    A file that needs no unpickling is converted without ``unsafe``.

    Args:
        src: The legacy file (a path or a readable binary file object).
        dst: Where to write (a path, written atomically, or a writable binary
            file object); it may be the same path as ``src``.
        unsafe: Allow unpickling ``src``. Only for files from a trusted source.
        compression: Whether to deflate the members of ``dst``.

    Returns:
        The keys written, sorted.

    Raises:
        UnsafeFileError: If ``src`` holds pickles and ``unsafe`` is False.
        ValueError: If a pickle holds an object catena cannot store.
    """
    source = _npz_reader.source_name(src)
    position = None if isinstance(src, (str, os.PathLike)) else src.tell()
    try:
        entries, _ = _npz_reader.read_npz(src)
        arrays = {key: _values.to_storable(key, value) for key, value in entries.items()}
    except UnsafeFileError as error:
        if not error.needs_unpickling:
            raise
        if not unsafe:
            raise UnsafeFileError(
                f'{error}.\nconvert_legacy_npz reads such a file only with unsafe=True, '
                'which unpickles it: unpickling can run arbitrary code, so pass it only for '
                'files from a source you trust', needs_unpickling=True) from None
        if position is not None:
            src.seek(position)
        arrays = _read_unsafely(src, source)
    _npz_writer.write_npz(dst, arrays, compression)
    return sorted(arrays)


__all__ = ['convert_legacy_npz']
