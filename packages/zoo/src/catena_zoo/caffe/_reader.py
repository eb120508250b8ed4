"""Reading a binary caffemodel, with errors that say what is wrong and where.

protobuf parses the file; when it refuses, a small wire-format walker goes
over the same bytes with the schema's descriptors to find the first field
that breaks the encoding (a length running past the end of the file, a
truncated varint, an invalid wire type) and names it by its path, such as
``layer[3] ('conv2').blobs[0].data``. Files that are something else (an npz,
an HDF5 file, a text prototxt, a mean ``.binaryproto``) are recognised by
their first bytes and named.
"""

from __future__ import annotations

import errno
import io
import os
import re
import zipfile
from typing import Any

from google.protobuf import descriptor as pb_descriptor, message as pb_message

from catena_zoo.caffe import _schema
from catena_zoo.caffe.errors import CaffeFormatError

_VARINT, _FIXED64, _LENGTH, _START_GROUP, _END_GROUP, _FIXED32 = range(6)

# Messages whose entries are labelled with their ``name`` field in error paths.
# protobuf's own default recursion limit.
_MAX_DEPTH = 100
_NAME_FIELD = {'caffe.LayerParameter': 1, 'caffe.V1LayerParameter': 4}

_FD = pb_descriptor.FieldDescriptor
_FIXED_WIDTH = {_FD.TYPE_FLOAT: 4, _FD.TYPE_FIXED32: 4, _FD.TYPE_SFIXED32: 4,
                _FD.TYPE_DOUBLE: 8, _FD.TYPE_FIXED64: 8, _FD.TYPE_SFIXED64: 8}
_NOT_PACKED = {_FD.TYPE_STRING, _FD.TYPE_BYTES, _FD.TYPE_MESSAGE, _FD.TYPE_GROUP}

_TEXT_FORMAT_HINT = re.compile(rb'^\s*(#[^\n]*\n\s*)*(name|layers?|input\w*)\s*[:{]')


def read_net_parameter(path: str | os.PathLike[str]) -> Any:
    """Reads a binary caffemodel into a ``caffe.NetParameter`` message.

    Args:
        path: The ``.caffemodel`` file.

    Returns:
        The parsed ``NetParameter`` (of :mod:`catena_zoo.caffe._schema`).

    Raises:
        FileNotFoundError: If ``path`` does not exist.
        CaffeFormatError: If the file is empty, truncated or malformed, is
            another kind of file, or holds no layers.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, 'caffemodel file not found', path)
    if os.path.isdir(path):
        raise CaffeFormatError(path, 'it is a directory; pass the .caffemodel file inside it')
    with open(path, 'rb') as f:
        data = f.read()
    if not data:
        raise CaffeFormatError(path, 'the file is empty')
    foreign = _foreign_format(data)
    if foreign is not None:
        raise CaffeFormatError(path, foreign)
    net = _schema.NetParameter()
    try:
        net.ParseFromString(data)
    except pb_message.DecodeError as err:
        if _looks_like_text(data):
            raise CaffeFormatError(path, _TEXT_PROTOTXT) from None
        located = locate_bad_field(data)
        if located is None:
            raise CaffeFormatError(path, f'protobuf cannot decode it ({err})') from None
        reason, field, offset = located
        raise CaffeFormatError(path, f'{reason}; the file is truncated or corrupt', field,
                               offset) from None
    if not net.layer and not net.layers:
        raise CaffeFormatError(path, _why_no_layers(data))
    return net


_TEXT_PROTOTXT = ('it is a text-format prototxt (a network definition without weights); '
                  'CaffeFunction needs the binary .caffemodel that holds the trained weights')


def _foreign_format(data: bytes) -> str | None:
    """Names the format of a file that cannot be a caffemodel, from its first bytes."""
    if data.startswith((b'PK\x03\x04', b'PK\x05\x06')):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                names = archive.namelist()
        except zipfile.BadZipFile:
            names = []
        if names and all(name.endswith('.npy') for name in names):
            return ('it is an NPZ archive (NumPy savez, as written by '
                    'catena.serializers.save_npz); load it with '
                    'catena.serializers.load_npz instead')
        return 'it is a ZIP archive, not a binary Caffe NetParameter'
    if data.startswith(b'\x93NUMPY'):
        return 'it is a NumPy .npy array file, not a binary Caffe NetParameter'
    if data.startswith(b'\x89HDF\r\n\x1a\n'):
        return ('it is an HDF5 file (as written by catena.serializers.save_hdf5); '
                'load it with catena.serializers.load_hdf5 instead')
    if data.startswith(b'\x1f\x8b'):
        return 'it is gzip-compressed; decompress it first'
    return None


def _looks_like_text(data: bytes) -> bool:
    head = data[:4096]
    try:
        text = head.decode('utf-8')
    except UnicodeDecodeError:
        return False
    if not all(ch.isprintable() or ch in '\t\r\n' for ch in text):
        return False
    return _TEXT_FORMAT_HINT.match(head) is not None


def _why_no_layers(data: bytes) -> str:
    if _looks_like_text(data):
        return _TEXT_PROTOTXT
    blob = _schema.BlobProto()
    try:
        blob.ParseFromString(data)
    except pb_message.DecodeError:
        pass
    else:
        if len(blob.data) or len(blob.double_data):
            return ('it looks like a serialized BlobProto (such as a mean .binaryproto), '
                    'not a NetParameter')
    return ("it holds no layers (neither field 100 'layer' nor field 2 'layers' "
            'of a NetParameter)')


class _WireError(Exception):
    def __init__(self, reason: str, offset: int, path: list[str] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.offset = offset
        self.path = path if path is not None else []


def locate_bad_field(data: bytes) -> tuple[str, str, int] | None:
    """Finds the first field of a ``NetParameter`` encoding that breaks the wire format.

    Args:
        data: The bytes of the file.

    Returns:
        ``(reason, field path, byte offset)``, or None when the encoding is
        well-formed.
    """
    descriptor = _schema.POOL.FindMessageTypeByName('caffe.NetParameter')
    try:
        _walk(data, 0, len(data), descriptor, None)
    except _WireError as err:
        return err.reason, '.'.join(err.path) or '(top level)', err.offset
    return None


def _read_varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    start = pos
    value = 0
    shift = 0
    while True:
        if pos >= end:
            raise _WireError('a varint runs past the end of its message', start)
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift >= 70:
            raise _WireError('a varint is longer than 10 bytes', start)


def _read_labelled_varint(data: bytes, pos: int, end: int, label: str) -> tuple[int, int]:
    try:
        return _read_varint(data, pos, end)
    except _WireError as err:
        err.path.insert(0, label)
        raise


def _walk(data: bytes, pos: int, end: int, descriptor: Any, group: int | None,
          depth: int = 0) -> int:
    """Checks the fields in ``data[pos:end]``; returns where a group ended (or ``end``)."""
    if depth > _MAX_DEPTH:
        raise _WireError(f'messages and groups nest deeper than {_MAX_DEPTH} levels', pos)
    seen: dict[int, int] = {}
    while pos < end:
        tag_offset = pos
        tag, pos = _read_varint(data, pos, end)
        number, wire_type = tag >> 3, tag & 7
        field = descriptor.fields_by_number.get(number) if descriptor is not None else None
        index = seen.get(number, 0)
        seen[number] = index + 1
        label = _label(field, number, index)
        if number == 0:
            raise _WireError('a field has the number 0', tag_offset)
        if wire_type == _VARINT:
            _, pos = _read_labelled_varint(data, pos, end, label)
        elif wire_type in (_FIXED64, _FIXED32):
            width = 8 if wire_type == _FIXED64 else 4
            if pos + width > end:
                raise _WireError(f'it needs {width} bytes but only {end - pos} remain',
                                 tag_offset, [label])
            pos += width
        elif wire_type == _LENGTH:
            length, body = _read_labelled_varint(data, pos, end, label)
            if body + length > end:
                label = _label_with_name(data, body, end, field, label)
                raise _WireError(f'it declares {length} bytes but only {end - body} remain',
                                 tag_offset, [label])
            _check_length_delimited(data, body, body + length, field, label, tag_offset,
                                    depth)
            pos = body + length
        elif wire_type == _START_GROUP:
            try:
                pos = _walk(data, pos, end, None, number, depth + 1)
            except _WireError as err:
                err.path.insert(0, label)
                raise
        elif wire_type == _END_GROUP:
            if group != number:
                raise _WireError('an end-group marker matches no open group', tag_offset,
                                 [label])
            return pos
        else:
            raise _WireError(f'it has the invalid wire type {wire_type}', tag_offset, [label])
    if group is not None:
        raise _WireError(f'group #{group} is never closed', end)
    return end


def _check_length_delimited(data: bytes, start: int, end: int, field: Any, label: str,
                            tag_offset: int, depth: int) -> None:
    """Checks a length-delimited value: a message, or packed numbers."""
    if field is None:
        return
    if field.type == _FD.TYPE_MESSAGE:
        try:
            _walk(data, start, end, field.message_type, None, depth + 1)
        except _WireError as err:
            err.path.insert(0, _label_with_name(data, start, end, field, label))
            raise
    elif field.type in _NOT_PACKED or not _is_repeated(field):
        return  # bytes, or a scalar sent with the wrong wire type (kept as unknown)
    elif field.type in _FIXED_WIDTH:
        width = _FIXED_WIDTH[field.type]
        if (end - start) % width:
            raise _WireError(f'its packed length {end - start} is not a multiple of {width}',
                             tag_offset, [field.name])
    else:
        pos = start
        while pos < end:  # packed varints
            try:
                _, pos = _read_varint(data, pos, end)
            except _WireError as err:
                err.path.insert(0, field.name)
                raise


def _is_repeated(field: Any) -> bool:
    repeated = getattr(field, 'is_repeated', None)  # protobuf >= 6; older ones have label
    if repeated is None:
        return bool(field.label == _FD.LABEL_REPEATED)
    return bool(repeated)


def _label(field: Any, number: int, index: int) -> str:
    if field is None:
        return f'unknown field #{number}'
    if _is_repeated(field):
        return f'{field.name}[{index}]'
    return str(field.name)


def _label_with_name(data: bytes, start: int, end: int, field: Any, label: str) -> str:
    if field is None or field.type != _FD.TYPE_MESSAGE:
        return label
    name_number = _NAME_FIELD.get(field.message_type.full_name)
    if name_number is None:
        return label
    name = _peek_string(data, start, end, name_number)
    return f'{label} ({name!r})' if name is not None else label


def _peek_string(data: bytes, pos: int, end: int, number: int) -> str | None:
    """Returns the first string field ``number`` in ``data[pos:end]``, tolerating damage."""
    try:
        while pos < end:
            tag, pos = _read_varint(data, pos, end)
            wire_type = tag & 7
            if wire_type == _VARINT:
                _, pos = _read_varint(data, pos, end)
            elif wire_type in (_FIXED64, _FIXED32):
                pos += 8 if wire_type == _FIXED64 else 4
            elif wire_type == _LENGTH:
                length, pos = _read_varint(data, pos, end)
                if tag >> 3 == number and pos + length <= end:
                    return data[pos:pos + length].decode('utf-8', errors='replace')
                pos += length
            else:
                return None
    except _WireError:
        return None
    return None
