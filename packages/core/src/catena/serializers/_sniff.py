"""Recognising file formats by their first bytes, to say what to call instead."""

from __future__ import annotations

from catena._install import install_hint
from catena.serializers._errors import FileFormatError, UnsafeFileError

HEAD_SIZE = 64
ZIP_MAGICS = (b'PK\x03\x04', b'PK\x05\x06')  # a local file header; an empty archive
HDF5_MAGIC = b'\x89HDF\r\n\x1a\n'
NPY_MAGIC = b'\x93NUMPY'

_CAFFE_IMPORTER = ('catena_zoo.caffe.CaffeFunction (the Caffe importer in catena-zoo: '
                   f'{install_hint("catena-zoo")})')
# Field tags that may follow the name of a Caffe NetParameter: layers (V1), input,
# input_dim, force_backward, state, debug_info, input_shape, layer.
_CAFFE_NEXT_TAGS = frozenset(b'\x12\x1a\x20\x28\x32\x38\x42\xa2')
_PROTOTXT_STARTS = ('name:', 'layer {', 'layer{', 'layers {', 'input:', 'input_shape',
                    'force_backward')


def _looks_like_caffemodel(head: bytes) -> bool:
    if head.startswith(b'\xa2\x06'):  # field 100 (layer), length-delimited
        return True
    if len(head) < 3 or head[0] != 0x0A or head[1] >= 0x80:
        return False
    end = 2 + head[1]  # field 1 (name): a short printable string, then another field
    name = head[2:end]
    return (0 < len(name) == head[1] and end < len(head) and name.isascii()
            and name.decode('ascii').isprintable() and head[end] in _CAFFE_NEXT_TAGS)


def _looks_like_pickle(head: bytes) -> bool:
    return len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5


def identify(head: bytes) -> str:
    """Names the format of a file from its first bytes.

    Returns:
        One of 'zip', 'hdf5', 'npy', 'pickle', 'caffemodel', 'prototxt',
        'empty' and 'unknown'.
    """
    if not head:
        return 'empty'
    if head.startswith(ZIP_MAGICS):
        return 'zip'
    if head.startswith(HDF5_MAGIC):
        return 'hdf5'
    if head.startswith(NPY_MAGIC):
        return 'npy'
    if _looks_like_pickle(head):
        return 'pickle'
    if _looks_like_caffemodel(head):
        return 'caffemodel'
    text = head.lstrip().decode('latin-1')
    if text.startswith(_PROTOTXT_STARTS):
        return 'prototxt'
    return 'unknown'


def _advice(kind: str) -> str:
    if kind == 'empty':
        return 'the file is empty (0 bytes)'
    if kind == 'zip':
        return 'it is an NPZ (zip) archive; load it with catena.serializers.load_npz'
    if kind == 'hdf5':
        return 'it is an HDF5 file; load it with catena.serializers.load_hdf5'
    if kind == 'npy':
        return ('it is a single .npy array, not an archive of named arrays; read it with '
                'numpy.load(file, allow_pickle=False)')
    if kind == 'caffemodel':
        return ('it looks like a Caffe model (.caffemodel); convert it to an npz first, '
                'for a pretrained model with its convert_caffemodel_to_npz(caffemodel, npz) '
                '(e.g. catena.links.VGG16Layers.convert_caffemodel_to_npz, with catena-zoo '
                f'installed), or import any Caffe net with {_CAFFE_IMPORTER}')
    if kind == 'prototxt':
        return ('it looks like a Caffe network definition (.prototxt, text); the Caffe '
                f'importer reads the binary .caffemodel: {_CAFFE_IMPORTER}')
    raise AssertionError(f'no advice for {kind!r}')


def check_format(head: bytes, wanted: str, source: str) -> None:
    """Raises unless ``head`` starts a file of the ``wanted`` format.

    Args:
        head: The first :data:`HEAD_SIZE` bytes of the file.
        wanted: 'zip' (for NPZ archives) or 'hdf5'.
        source: The file's name, for the message.

    Raises:
        UnsafeFileError: For a Python pickle.
        FileFormatError: For any other format, saying what to call instead.
    """
    kind = identify(head)
    if kind == wanted:
        return
    name = 'an NPZ archive' if wanted == 'zip' else 'an HDF5 file'
    if kind == 'pickle':
        raise UnsafeFileError(
            f'{source} is a Python pickle, not {name}; catena never unpickles when loading. '
            'Re-save the object from the program that made it (catena.serializers.save_npz)')
    if kind == 'unknown':
        raise FileFormatError(
            f'{source} is not {name}: it does not start with the expected signature '
            f'(first bytes: {head[:8].hex()})')
    raise FileFormatError(f'{source} is not {name}: {_advice(kind)}')


__all__ = ['HDF5_MAGIC', 'HEAD_SIZE', 'NPY_MAGIC', 'ZIP_MAGICS', 'check_format', 'identify']
