"""The exporter writes what Chainer 7.8.1's exporter wrote for the same models.

``tests/data/chainer-7.8.1/MANIFEST.json`` describes the fixtures:
``caffe_mlp/`` is the MLP of ``mlp_classifier.npz`` (``l1=Linear(20, 30)``,
relu, ``l2=Linear(30, 10)``) and ``caffe_convnet/`` the ConvNet of
``convnet.npz`` (conv1, bn1, relu, max pooling, conv2, relu, fc) exported
in test mode. The same models are rebuilt in catena with those weights,
exported, and compared layer by layer (types, names, bottoms, tops, the
layer parameters Chainer set, and the blobs), then run through
CaffeFunction against Chainer's outputs.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
import pytest
from google.protobuf import text_format

import catena
import catena.functions as F
import catena.links as L
from catena.serializers import load_npz
from catena_zoo.caffe import CaffeFunction, _schema
from catena_zoo.exporters import caffe as caffe_export

DATA = pathlib.Path(__file__).resolve().parents[2] / 'data' / 'chainer-7.8.1'


class MLP(catena.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(20, 30)
            self.l2 = L.Linear(30, 10)

    def forward(self, x: Any) -> Any:
        return self.l2(F.relu(self.l1(x)))


class ConvNet(catena.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, 8, 3, pad=1)
            self.bn1 = L.BatchNormalization(8)
            self.conv2 = L.Convolution2D(8, 16, 3, stride=2)
            self.fc = L.Linear(None, 5)

    def forward(self, x: Any) -> Any:
        h = F.max_pooling_2d(F.relu(self.bn1(self.conv1(x))), 2)
        return self.fc(F.relu(self.conv2(h)))


def _mlp() -> MLP:
    model = MLP()
    load_npz(DATA / 'mlp_classifier.npz', model, path='predictor/')
    return model


def _convnet() -> ConvNet:
    model = ConvNet()
    with catena.using_config('train', False):
        model(np.load(DATA / 'convnet_x.npy'))  # initialize fc's W
    load_npz(DATA / 'convnet.npz', model)
    return model


# (fixture folder, model builder, input, Chainer's output, graph name)
CASES = [
    ('caffe_mlp', _mlp, 'mlp_x.npy', 'mlp_y.npy', 'mlp'),
    ('caffe_convnet', _convnet, 'convnet_x.npy', 'convnet_y_test_mode.npy', 'convnet'),
]


def test_manifest_describes_the_models() -> None:
    files = json.loads((DATA / 'MANIFEST.json').read_text())['files']
    assert 'conv1=Convolution2D(3,8,3,pad=1)' in files['convnet.npz']
    assert 'l1=Linear(20,30)' in files['mlp_classifier.npz']


def _strip_blobs(layer: Any) -> Any:
    copy = _schema.LayerParameter()
    copy.CopyFrom(layer)
    del copy.blobs[:]
    return copy


def _blob_shapes(net: Any) -> dict[str, list[tuple[int, ...]]]:
    return {layer.name: [tuple(b.shape.dim) for b in layer.blobs] for layer in net.layer}


@pytest.fixture(params=CASES, ids=[case[0] for case in CASES])
def exported(request: pytest.FixtureRequest, tmp_path: pathlib.Path) -> Any:
    folder, build, x_file, y_file, graph_name = request.param
    x = np.load(DATA / x_file)
    caffe_export.export(build(), x, tmp_path, graph_name=graph_name)
    return folder, tmp_path, x, np.load(DATA / y_file)


def test_prototxt_matches_chainer(exported: Any) -> None:
    folder, out, _, _ = exported
    ours = text_format.Parse((out / 'chainer_model.prototxt').read_text(),
                             _schema.NetParameter())
    chainers = text_format.Parse((DATA / folder / 'chainer_model.prototxt').read_text(),
                                 _schema.NetParameter())
    assert ours.name == chainers.name
    # Same layers, in the same order, with the same fields (Chainer's prototxt
    # spells them differently, e.g. ``pool: 0``; parsed they are equal).
    assert list(ours.layer) == list(chainers.layer)


def test_caffemodel_matches_chainer(exported: Any) -> None:
    folder, out, _, _ = exported
    ours, chainers = _schema.NetParameter(), _schema.NetParameter()
    ours.ParseFromString((out / 'chainer_model.caffemodel').read_bytes())
    chainers.ParseFromString((DATA / folder / 'chainer_model.caffemodel').read_bytes())
    assert [_strip_blobs(layer) for layer in ours.layer] == \
        [_strip_blobs(layer) for layer in chainers.layer]
    assert _blob_shapes(ours) == _blob_shapes(chainers)
    for mine, theirs in zip(ours.layer, chainers.layer):
        for blob, expected in zip(mine.blobs, theirs.blobs):
            np.testing.assert_array_equal(np.array(blob.data, np.float32),
                                          np.array(expected.data, np.float32))
    # The only difference: catena also names the network in the caffemodel.
    assert ours.name != chainers.name == ''
    ours.ClearField('name')
    assert ours.SerializeToString() == chainers.SerializeToString()


def test_export_reproduces_chainer_outputs(exported: Any) -> None:
    _, out, x, expected = exported
    net = text_format.Parse((out / 'chainer_model.prototxt').read_text(),
                            _schema.NetParameter())
    func = CaffeFunction(out / 'chainer_model.caffemodel', strict=True)
    with catena.using_config('train', False):
        y, = func(inputs={'data': x}, outputs=[net.layer[-1].top[0]])
    np.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)
