"""Saving and loading objects in NumPy's NPZ format (``save_npz``, ``load_npz``).

An object is first flattened into a dictionary of arrays keyed by
``/``-joined paths (``predictor/l1/W``, an optimizer's ``predictor/l1/W/m``,
``t``, ``epoch``), then written with one ``<key>.npy`` member per value, as
Chainer does, so files move both ways between Chainer and catena.

Loading never unpickles: see :func:`load_npz`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from catena.serializer import Serializer
from catena.serializers import _npz_reader, _npz_writer, _values
from catena.serializers._loading import (
    MappingDeserializer,
    load_transactionally,
    make_ignore_predicate,
)


class DictionarySerializer(Serializer):
    """Serializer that flattens an object into a dictionary of host arrays.

    Each ``serializer(key, value)`` call stores a copy of ``value`` as a NumPy
    array under ``path + key``. Python scalars and strings become 0-d arrays
    and None becomes a small structured array (see
    :data:`catena.serializers.NONE_DTYPE`), so nothing ever needs pickle.

    Args:
        target: The dictionary to fill (a new one when None).
        path: The prefix of every key, ending with ``/`` (empty at the root).

    Attributes:
        target (dict): The keys and arrays stored so far.
        path (str): The prefix of this serializer's keys.
    """

    def __init__(self, target: dict[str, Any] | None = None, path: str = '') -> None:
        self.target: dict[str, Any] = {} if target is None else target
        self.path = path

    def __getitem__(self, key: str) -> DictionarySerializer:
        return DictionarySerializer(self.target, self.path + key.strip('/') + '/')

    def __call__(self, key: str, value: Any) -> Any:
        full_key = self.path + key.lstrip('/')
        self.target[full_key] = _values.to_storable(full_key, value)
        return value


class NpzDeserializer(MappingDeserializer):
    """Deserializer over the arrays of an NPZ archive (or any mapping of them).

    ``deserializer(key, value)`` fills an array ``value`` in place, converts
    a stored scalar to the type of a scalar ``value``, and returns the stored
    array when ``value`` is None; a stored None loads as None.
    :meth:`load` checks everything before loading anything (see
    :func:`load_npz`).

    Args:
        npz: A mapping of full keys to arrays: what
            :func:`catena.serializers.load_npz` reads, a ``numpy.load``
            result, or a :class:`DictionarySerializer`'s target.
        path: The prefix of the keys to load ('updater/model:main/').
        strict: If True, a missing key raises :class:`KeyError`; if False,
            missing keys leave values as they are. Either way dtypes are cast
            as :func:`numpy.copyto` casts, unless a value would change (see
            :func:`load_npz`).
        ignore_names: A key, a callable ``key -> bool``, or a list of them:
            the full keys whose values are never loaded.
    """

    def __init__(self, npz: Mapping[str, Any], path: str = '', strict: bool = True,
                 ignore_names: Any = None) -> None:
        super().__init__(npz, path=path, strict=strict, ignore_names=ignore_names)


def serialize(obj: Any) -> dict[str, Any]:
    """Flattens an object into a dictionary of host arrays.

    Args:
        obj: An object that defines ``serialize(serializer)``.

    Returns:
        dict: The arrays keyed by ``/``-joined paths, as :func:`save_npz`
        writes them (see :class:`DictionarySerializer`).
    """
    serializer = DictionarySerializer()
    serializer.save(obj)
    return serializer.target


def save_npz(file: Any, obj: Any, compression: bool = True) -> None:
    """Saves an object to an NPZ file.

    A path is written atomically: to a temporary file in the same folder,
    flushed to disk, then renamed onto ``file``; if anything fails, no file
    is left behind and an existing ``file`` is unchanged.

    Args:
        file: A path, or a writable binary file object.
        obj: An object that defines ``serialize(serializer)``: a link, an
            optimizer, a trainer...
        compression: Whether to deflate the members (``numpy.savez_compressed``
            rather than ``numpy.savez``).
    """
    _npz_writer.write_npz(file, serialize(obj), bool(compression))


def load_npz(file: Any, obj: Any, path: str = '', strict: bool = True,
             ignore_names: Any = None) -> None:
    """Loads an object from an NPZ file, or raises and leaves it unchanged.

    The archive is read without unpickling anything: object arrays and pickle
    payloads raise :class:`~catena.serializers.UnsafeFileError` (except the
    payload of ``numpy.asarray(None)`` that Chainer writes for an
    uninitialized parameter, which loads as None). Every value under ``path``
    that the object asks for is checked against the object before anything
    is loaded.

    Memory stays bounded by the object: a member's declared shape and dtype
    are checked against the object's value before its data is decompressed,
    and members the object never asks for are not decompressed at all. A
    member with nothing to check it against (an uninitialized parameter, a
    string) may expand to at most ``catena.config.load_max_expansion`` (100)
    times the archive's compressed size plus 16 MiB; beyond that it is
    refused as a zip bomb. See ``docs/loading-safety.md``.

    Shapes must match. A dtype that differs is cast as :func:`numpy.copyto`
    casts (float32 into float16, int into float, int64 into int32), except
    that a cast must not change a value: another kind of value (float into
    int), an integer out of the target's range, or a finite float that
    overflows to inf is refused. All problems are reported in one
    :class:`~catena.serializers.KeyMismatchError` before anything is loaded.

    Args:
        file: A path, or a readable binary file object.
        obj: The object to load into (defines ``serialize(serializer)``).
        path: The prefix of the keys to load, e.g. ``'updater/model:main/'``
            to load a model from a trainer snapshot.
        strict: If True, every key the object asks for must be in the file;
            if False, missing keys are skipped. Keys of the file that the
            object never asks for are ignored either way, as are keys outside
            ``path``.
        ignore_names: A key, a callable ``key -> bool``, or a list of them:
            full keys (with ``path``) that are neither loaded nor reported.

    Raises:
        UnsafeFileError: The file holds pickles, a zip bomb or an oversized
            header.
        FileFormatError: The file is truncated, corrupt, or of another format
            (the message says what to call instead).
        KeyMismatchError: The file does not fit the object.
    """
    if not isinstance(path, str):
        raise TypeError(f'path must be a str, not {type(path).__name__}')
    make_ignore_predicate(ignore_names)  # a bad ignore_names fails before the file opens
    with _npz_reader.NpzArchive(file) as archive:
        load_transactionally(archive, obj, path, strict, ignore_names, archive.source,
                             NpzDeserializer)


__all__ = ['DictionarySerializer', 'NpzDeserializer', 'load_npz', 'save_npz', 'serialize']
