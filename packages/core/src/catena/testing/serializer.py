"""Round trips through serializers (``testing.save_and_load*``)."""

from __future__ import annotations

import importlib
import os
import tempfile
from collections.abc import Callable
from typing import Any


def save_and_load(src: Any, dst: Any, filename: str, saver: Callable[[str, Any], Any],
                  loader: Callable[[str, Any], Any]) -> None:
    """Saves ``src`` to ``filename`` with ``saver`` and loads it into ``dst`` with ``loader``.

    Args:
        src: The object to save (a link, an optimizer, ...).
        dst: The object to load into.
        filename: The file to write.
        saver: ``saver(filename, obj)``, such as ``catena.serializers.save_npz``.
        loader: ``loader(filename, obj)``, such as ``catena.serializers.load_npz``.
    """
    saver(filename, src)
    loader(filename, dst)


def _serializers(kind: str) -> Any:
    try:
        serializers = importlib.import_module('catena.serializers')
    except ImportError as error:
        raise NotImplementedError(
            f'testing.save_and_load_{kind} needs catena.serializers, which does not exist '
            'yet; it arrives with the serializer issue') from error
    return serializers


def _round_trip(src: Any, dst: Any, suffix: str, saver_name: str, loader_name: str,
                kind: str) -> None:
    serializers = _serializers(kind)
    saver = getattr(serializers, saver_name)
    loader = getattr(serializers, loader_name)
    handle, path = tempfile.mkstemp(suffix=suffix)
    os.close(handle)
    try:
        save_and_load(src, dst, path, saver, loader)
    finally:
        os.remove(path)


def save_and_load_npz(src: Any, dst: Any) -> None:
    """Round-trips ``src`` into ``dst`` through an NPZ file in a temporary place.

    Raises:
        NotImplementedError: Until ``catena.serializers`` exists.
    """
    _round_trip(src, dst, '.npz', 'save_npz', 'load_npz', 'npz')


def save_and_load_hdf5(src: Any, dst: Any) -> None:
    """Round-trips ``src`` into ``dst`` through an HDF5 file (needs h5py).

    Raises:
        NotImplementedError: Until ``catena.serializers`` exists.
    """
    _round_trip(src, dst, '.h5', 'save_hdf5', 'load_hdf5', 'hdf5')


__all__ = ['save_and_load', 'save_and_load_hdf5', 'save_and_load_npz']
