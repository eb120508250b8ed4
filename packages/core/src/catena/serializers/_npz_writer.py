"""Writing NPZ archives that ``numpy.load`` (and Chainer) read, without pickle."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Mapping
from typing import Any

import numpy
import numpy.lib.format

from catena._atomic import atomic_path


def write_npz_stream(stream: Any, arrays: Mapping[str, numpy.ndarray], compression: bool) -> None:
    """Writes ``arrays`` as the members ``<key>.npy`` of a zip archive.

    Args:
        stream: A writable binary file object.
        arrays: Keys mapped to arrays that hold no Python objects.
        compression: Whether to deflate the members.
    """
    method = zipfile.ZIP_DEFLATED if compression else zipfile.ZIP_STORED
    with zipfile.ZipFile(stream, mode='w', compression=method, allowZip64=True) as archive:
        for key, array in arrays.items():
            with archive.open(key + '.npy', mode='w', force_zip64=True) as member:
                numpy.lib.format.write_array(member, array, allow_pickle=False)


def write_npz(file: Any, arrays: Mapping[str, numpy.ndarray], compression: bool) -> None:
    """Writes an NPZ archive to a path (atomically) or to a file object.

    Args:
        file: A path, or a writable binary file object.
        arrays: Keys mapped to arrays that hold no Python objects.
        compression: Whether to deflate the members.
    """
    if isinstance(file, (str, os.PathLike)):
        with atomic_path(file) as temporary, open(temporary, 'wb') as stream:
            write_npz_stream(stream, arrays, compression)
        return
    if not hasattr(file, 'write'):
        raise TypeError(f'file must be a path or a writable binary file object, '
                        f'not {type(file).__name__}')
    write_npz_stream(file, arrays, compression)


__all__ = ['write_npz', 'write_npz_stream']
