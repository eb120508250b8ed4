"""Files that are not readable caffemodels raise errors that name the file and the bad field."""

from __future__ import annotations

import pathlib
import re
from typing import Any

import numpy as np
import pytest

import catena

caffe = pytest.importorskip('catena_zoo.caffe')
schema = pytest.importorskip('catena_zoo.caffe._schema')

DATA = pathlib.Path(__file__).resolve().parents[2] / 'data' / 'chainer-7.8.1'
CONVNET = DATA / 'caffe_convnet' / 'chainer_model.caffemodel'


def write(tmp_path: pathlib.Path, data: bytes, name: str = 'model.caffemodel') -> pathlib.Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def raises_format_error(path: pathlib.Path, *patterns: str) -> Any:
    with pytest.raises(caffe.CaffeFormatError) as info:
        caffe.CaffeFunction(path)
    message = str(info.value)
    assert str(path) in message
    for pattern in patterns:
        assert re.search(pattern, message), (pattern, message)
    return info.value


def test_missing_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / 'nowhere.caffemodel'
    with pytest.raises(FileNotFoundError, match='caffemodel file not found') as info:
        caffe.CaffeFunction(path)
    assert str(path) in str(info.value)


def test_directory(tmp_path: pathlib.Path) -> None:
    raises_format_error(tmp_path, 'directory')


def test_empty_file(tmp_path: pathlib.Path) -> None:
    raises_format_error(write(tmp_path, b''), 'empty')


@pytest.mark.parametrize('cut', [3, 40, 1200, 3000, 7000, -1])
def test_truncated_file_names_the_layer_being_cut(tmp_path: pathlib.Path, cut: int) -> None:
    data = CONVNET.read_bytes()
    path = write(tmp_path, data[:cut])
    error = raises_format_error(path, 'truncated')
    net = schema.NetParameter.FromString(data)
    offsets = []  # where each layer's entry starts in the file
    position = 0
    for layer in net.layer:
        offsets.append(position)
        size = layer.ByteSize()
        position += 2 + len(_varint(size)) + size
    cut_at = len(data[:cut])
    index = max(i for i, start in enumerate(offsets) if start < cut_at)
    name = net.layer[index].name if cut_at - offsets[index] > 10 else None
    assert error.field.startswith(f'layer[{index}]')
    if name is not None:
        assert f"layer[{index}] ('{name}')" in str(error)
    assert offsets[index] <= error.offset <= cut_at


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def test_bad_packed_data_is_named(tmp_path: pathlib.Path) -> None:
    net = schema.NetParameter()
    layer = net.layer.add(name='fc', type='InnerProduct')
    layer.blobs.add().data.extend([1.0, 2.0, 3.0])
    data = net.SerializeToString()
    packed = bytes([0x2A, 12])  # blob field 5 (data), 12 bytes
    assert data.count(packed) == 1
    data = data.replace(packed, bytes([0x2A, 11]))  # one byte short of a float
    error = raises_format_error(write(tmp_path, data), 'not a multiple of 4',
                                re.escape("layer[0] ('fc').blobs[0].data"))
    assert error.field == "layer[0] ('fc').blobs[0].data"


def test_garbage(tmp_path: pathlib.Path) -> None:
    garbage = np.random.RandomState(0).bytes(2000)
    raises_format_error(write(tmp_path, garbage), 'corrupt|no layers|cannot decode')


def test_invalid_wire_type(tmp_path: pathlib.Path) -> None:
    data = bytes([0xA2, 0x06, 0x02, 0x0F, 0x05])  # layer { field 1 with wire type 7 }
    error = raises_format_error(write(tmp_path, data), 'invalid wire type 7')
    assert error.field == 'layer[0].name'


def test_npz_is_recognised(tmp_path: pathlib.Path) -> None:
    path = tmp_path / 'weights.npz'
    np.savez(path, W=np.zeros(3))
    raises_format_error(path, 'NPZ', 'load_npz')


def test_catena_snapshot_npz_is_recognised(tmp_path: pathlib.Path) -> None:
    path = tmp_path / 'model.npz'
    catena.serializers.save_npz(path, catena.links.Linear(2, 3))
    raises_format_error(path, 'NPZ', 'load_npz')


def test_hdf5_is_recognised() -> None:
    raises_format_error(DATA / 'mlp_classifier.h5', 'HDF5', 'load_hdf5')


def test_text_prototxt_is_recognised() -> None:
    raises_format_error(DATA / 'caffe_mlp' / 'chainer_model.prototxt', 'text-format prototxt',
                        'binary .caffemodel')


def test_mean_binaryproto_is_recognised(tmp_path: pathlib.Path) -> None:
    blob = schema.BlobProto(num=1, channels=3, height=2, width=2)
    blob.data.extend(np.arange(12, dtype=np.float32).tolist())
    raises_format_error(write(tmp_path, blob.SerializeToString(), 'mean.binaryproto'),
                        'BlobProto')


def test_message_without_layers(tmp_path: pathlib.Path) -> None:
    data = schema.NetParameter(name='empty').SerializeToString()
    raises_format_error(write(tmp_path, data), 'no layers')


def _single_layer_file(tmp_path: pathlib.Path, type_: str, shapes: list[tuple[int, ...]],
                       sizes: list[int], **params: Any) -> pathlib.Path:
    net = schema.NetParameter()
    layer = net.layer.add(name='broken', type=type_)
    layer.bottom.append('x')
    layer.top.append('y')
    for shape, size in zip(shapes, sizes):
        blob = layer.blobs.add()
        blob.shape.dim.extend(shape)
        blob.data.extend([0.5] * size)
    for field, values in params.items():
        for key, value in values.items():
            setattr(getattr(layer, field), key, value)
    return write(tmp_path, net.SerializeToString())


def test_blob_size_not_matching_its_shape(tmp_path: pathlib.Path) -> None:
    path = _single_layer_file(tmp_path, 'InnerProduct', [(3, 4), (3,)], [11, 3],
                              inner_product_param={'num_output': 3})
    error = raises_format_error(path, 'blobs\\[0\\]', '11 values', '\\(3, 4\\)')
    assert error.field == "layer[0] ('broken')"


def test_layer_without_its_weights(tmp_path: pathlib.Path) -> None:
    path = _single_layer_file(tmp_path, 'Convolution', [], [],
                              convolution_param={'num_output': 3})
    raises_format_error(path, 'Convolution layer', 'blobs\\[0\\]', 'trained weights')


def test_kernel_not_matching_the_weights(tmp_path: pathlib.Path) -> None:
    path = _single_layer_file(tmp_path, 'Convolution', [(2, 1, 3, 3), (2,)], [18, 2],
                              convolution_param={'num_output': 2, 'kernel_h': 5,
                                                 'kernel_w': 5})
    raises_format_error(path, 'kernel \\(5, 5\\)', '\\(2, 1, 3, 3\\)')


def test_deeply_nested_groups(tmp_path: pathlib.Path) -> None:
    depth = 200_000
    data = bytes([0xA3, 0x06]) * depth + bytes([0xA4, 0x06]) * depth  # layer groups
    raises_format_error(write(tmp_path, data), 'nest deeper than 100 levels')


def test_negative_blob_dimensions(tmp_path: pathlib.Path) -> None:
    path = _single_layer_file(tmp_path, 'InnerProduct', [(-2, -2)], [4],
                              inner_product_param={'num_output': 2})
    error = raises_format_error(path, 'InnerProduct layer', 'blobs\\[0\\]',
                                'negative dimension')
    assert error.field == "layer[0] ('broken')"


@pytest.mark.parametrize('shape, size', [((0, 8), 0), ((8,), 8)])
def test_inner_product_without_num_output_needs_2d_weights(tmp_path: pathlib.Path, shape: Any,
                                                           size: int) -> None:
    path = _single_layer_file(tmp_path, 'InnerProduct', [shape], [size])
    error = raises_format_error(path, 'InnerProduct layer', 'num_output is unset')
    assert error.field == "layer[0] ('broken')"


@pytest.mark.parametrize('operation, coeff, pattern', [
    (1, [1.0, 2.0], '2 coeff values for 3 bottoms'),
    (2, [1.0], '1 coeff values for 3 bottoms'),
    (0, [1.0, 2.0, 3.0], 'coeff values for PROD'),
])
def test_eltwise_coefficients_caffe_refuses(tmp_path: pathlib.Path, operation: int,
                                            coeff: list[float], pattern: str) -> None:
    net = schema.NetParameter()
    layer = net.layer.add(name='broken', type='Eltwise')
    layer.bottom.extend(['a', 'b', 'c'])
    layer.top.append('y')
    layer.eltwise_param.operation = operation
    layer.eltwise_param.coeff.extend(coeff)
    error = raises_format_error(write(tmp_path, net.SerializeToString()), 'Eltwise layer',
                                pattern)
    assert error.field == "layer[0] ('broken')"


def test_values_no_check_foresaw_are_format_errors(tmp_path: pathlib.Path) -> None:
    path = _single_layer_file(tmp_path, 'Convolution', [(2, 1, 3, 3), (2,)], [18, 2],
                              convolution_param={'num_output': 2, 'group': 0, 'kernel_h': 3,
                                                 'kernel_w': 3})
    error = raises_format_error(path, 'Convolution layer', 'do not make a layer',
                                'must be a positive int')
    assert error.field == "layer[0] ('broken')"
    assert isinstance(error.__cause__, ValueError)
