"""The caffemodels written by Chainer 7.8.1's Caffe exporter reproduce Chainer's outputs.

``tests/data/chainer-7.8.1/MANIFEST.json`` says which inputs and outputs
belong to each exported model: ``caffe_mlp/`` is the MLP of
``mlp_classifier.npz`` (``mlp_x.npy`` -> ``mlp_y.npy``) and
``caffe_convnet/`` the ConvNet of ``convnet.npz`` in test mode
(``convnet_x.npy`` -> ``convnet_y_test_mode.npy``).
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import catena

caffe = pytest.importorskip('catena_zoo.caffe')

DATA = pathlib.Path(__file__).resolve().parents[2] / 'data' / 'chainer-7.8.1'

# (fixture folder, input, expected output, input blob, output blob of the last layer)
FIXTURES = [
    ('caffe_mlp', 'mlp_x.npy', 'mlp_y.npy', 'data', 'LinearFunction-2-1'),
    ('caffe_convnet', 'convnet_x.npy', 'convnet_y_test_mode.npy', 'data',
     'LinearFunction-7-1'),
]


def test_manifest_describes_the_fixtures() -> None:
    files = json.loads((DATA / 'MANIFEST.json').read_text())['files']
    assert 'mlp_x.npy' in files['caffe_mlp/']
    assert 'convnet_x.npy' in files['caffe_convnet/']
    assert 'test mode' in files['caffe_convnet/']


@pytest.mark.parametrize(('folder', 'x_file', 'y_file', 'input_blob', 'output_blob'),
                         FIXTURES, ids=[f[0] for f in FIXTURES])
def test_reproduces_chainer_outputs(folder: str, x_file: str, y_file: str, input_blob: str,
                                    output_blob: str) -> None:
    func = caffe.CaffeFunction(DATA / folder / 'chainer_model.caffemodel', strict=True)
    x = np.load(DATA / x_file)
    expected = np.load(DATA / y_file)
    with catena.using_config('train', False):
        y, = func(inputs={input_blob: x}, outputs=[output_blob])
    assert y.shape == expected.shape
    np.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)


def test_convnet_layers_and_parameters() -> None:
    func = caffe.CaffeFunction(DATA / 'caffe_convnet' / 'chainer_model.caffemodel')
    assert [name for name, _, _ in func.layers] == [
        'Convolution2DFunction-0-1', 'FixedBatchNormalization-1-1_bn',
        'FixedBatchNormalization-1-1', 'ReLU-2-1', 'MaxPoolingND-3-1',
        'Convolution2DFunction-4-1', 'ReLU-5-1', 'Reshape-6-1', 'LinearFunction-7-1']
    assert func['Convolution2DFunction-0-1'].W.shape == (8, 3, 3, 3)
    assert func['LinearFunction-7-1'].W.shape == (5, 64)
    assert isinstance(func['FixedBatchNormalization-1-1_bn'],
                      catena.links.BatchNormalization)


def test_gradients_flow_to_the_imported_parameters() -> None:
    func = caffe.CaffeFunction(DATA / 'caffe_convnet' / 'chainer_model.caffemodel')
    x = np.load(DATA / 'convnet_x.npy')
    func.cleargrads()
    y, = func(inputs={'data': x}, outputs=['LinearFunction-7-1'])
    catena.functions.sum(y).backward()
    for name, param in func.namedparams():
        assert param.grad is not None, name
        assert np.isfinite(param.grad).all(), name
    assert np.abs(func['Convolution2DFunction-0-1'].W.grad).sum() > 0
