"""Saving and loading objects: NPZ (always) and HDF5 (with h5py).

``save_npz(file, obj)`` / ``load_npz(file, obj)`` and ``save_hdf5`` /
``load_hdf5`` work on any object that defines ``serialize(serializer)``:
links, optimizers, trainers. Keys follow Chainer's layout, so files written
by Chainer load into the same models in catena and the other way round.

Loading is safe and all-or-nothing: nothing in a file is unpickled, imported
or called; every problem is reported in one error; and a failed load leaves
the object unchanged. How values are stored:

* arrays as they are; scalars as 0-d arrays; strings as unicode arrays;
* None, in NPZ files, as a 0-d array of the structured dtype
  :data:`NONE_DTYPE` (one ``uint8`` field named ``__catena_none__``); in HDF5
  files as an empty dataset, as Chainer does. Chainer's pickled None
  (``numpy.asarray(None)``) is recognised byte for byte and loads as None.
"""

from __future__ import annotations

from catena.serializers._errors import FileFormatError, KeyMismatchError, UnsafeFileError
from catena.serializers._legacy import convert_legacy_npz
from catena.serializers._values import NONE_DTYPE
from catena.serializers.hdf5 import HDF5Deserializer, HDF5Serializer, load_hdf5, save_hdf5
from catena.serializers.npz import DictionarySerializer, NpzDeserializer, load_npz, save_npz

__all__ = [
    'NONE_DTYPE',
    'DictionarySerializer',
    'FileFormatError',
    'HDF5Deserializer',
    'HDF5Serializer',
    'KeyMismatchError',
    'NpzDeserializer',
    'UnsafeFileError',
    'convert_legacy_npz',
    'load_hdf5',
    'load_npz',
    'save_hdf5',
    'save_npz',
]
