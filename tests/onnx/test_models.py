"""Whole models exported, checked with onnx.checker (full check) and run in onnxruntime."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import catena
import catena.functions as F
import catena.links as L

onnx = pytest.importorskip('onnx')
pytest.importorskip('onnxruntime')
import catena_onnx  # noqa: E402
from catena_onnx.verification import run_onnxruntime  # noqa: E402


class MLP(catena.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(12, 32)
            self.l2 = L.Linear(32, 32)
            self.l3 = L.Linear(32, 5)

    def forward(self, x: Any) -> Any:
        h = F.dropout(F.relu(self.l1(x)), 0.3)
        return F.softmax(self.l3(F.sigmoid(self.l2(h))))


class LeNet(catena.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(1, 6, 5, pad=2)
            self.conv2 = L.Convolution2D(6, 16, 5)
            self.fc1 = L.Linear(None, 60)
            self.fc2 = L.Linear(60, 10)

    def forward(self, x: Any) -> Any:
        h = F.max_pooling_2d(F.relu(self.conv1(x)), 2)
        h = F.max_pooling_2d(F.relu(self.conv2(h)), 2)
        return self.fc2(F.tanh(self.fc1(h)))


class Bottleneck(catena.Chain):
    def __init__(self, channels: int, stride: int) -> None:
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(channels, channels // 2, 1, stride, nobias=True)
            self.bn1 = L.BatchNormalization(channels // 2)
            self.conv2 = L.Convolution2D(channels // 2, channels // 2, 3, 1, 1, nobias=True)
            self.bn2 = L.BatchNormalization(channels // 2)
            self.conv3 = L.Convolution2D(channels // 2, channels, 1, nobias=True)
            self.bn3 = L.BatchNormalization(channels)
            self.shortcut = L.Convolution2D(channels, channels, 1, stride, nobias=True) \
                if stride > 1 else None

    def forward(self, x: Any) -> Any:
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        return F.relu(h + (x if self.shortcut is None else self.shortcut(x)))


class SmallResNet(catena.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(3, 16, 3, pad=1, nobias=True)
            self.bn = L.BatchNormalization(16)
            self.block1 = Bottleneck(16, 1)
            self.block2 = Bottleneck(16, 2)
            self.fc = L.Linear(16, 4)

    def forward(self, x: Any) -> Any:
        h = F.relu(self.bn(self.conv(x)))
        h = F.max_pooling_2d(h, 3, stride=2, pad=1)
        h = self.block2(self.block1(h))
        h = F.average_pooling_2d(h, h.shape[2:])
        return self.fc(h)


class RNNLM(catena.Chain):
    def __init__(self, n_vocab: int = 20, n_units: int = 8) -> None:
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units)
            self.rnn = L.NStepLSTM(2, n_units, n_units, 0.0)
            self.out = L.Linear(n_units, n_vocab)

    def forward(self, tokens: Any) -> Any:
        xs = F.separate(self.embed(tokens), axis=0)
        _, _, ys = self.rnn(None, None, list(xs))
        return self.out(F.concat(ys, axis=0))


def _randomize_batch_norm_statistics(model: catena.Link) -> None:
    rng = np.random.default_rng(5)
    for link in model.links():
        if isinstance(link, L.BatchNormalization):
            link.avg_mean[...] = rng.normal(0, 0.2, link.avg_mean.shape)
            link.avg_var[...] = rng.uniform(0.5, 2, link.avg_var.shape)
            link.gamma.array[...] = rng.uniform(0.5, 1.5, link.gamma.shape)
            link.beta.array[...] = rng.normal(0, 0.2, link.beta.shape)


def _images(batch: int, channels: int, size: int) -> np.ndarray:
    return np.random.default_rng(batch).uniform(0, 1, (batch, channels, size, size)) \
        .astype(np.float32)


MODELS = {
    'mlp': (MLP, lambda batch: np.random.default_rng(batch).normal(
        size=(batch, 12)).astype(np.float32)),
    'lenet': (LeNet, lambda batch: _images(batch, 1, 28)),
    'resnet': (SmallResNet, lambda batch: _images(batch, 3, 16)),
}


def _expected(model: catena.Link, x: np.ndarray) -> np.ndarray:
    with catena.using_config('train', False), catena.no_backprop_mode():
        return np.asarray(model(x).array)


@pytest.mark.parametrize('name', sorted(MODELS))
def test_model_exports_and_runs_equal(name: str) -> None:
    make, data = MODELS[name]
    model = make()
    _randomize_batch_norm_statistics(model)
    x = data(2)
    proto = catena_onnx.export(model, x)
    onnx.checker.check_model(proto, full_check=True)
    got = next(iter(run_onnxruntime(proto, {'Input_0': x}).values()))
    np.testing.assert_allclose(got, _expected(model, x), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('name', sorted(MODELS))
def test_dynamic_batch_runs_at_other_sizes(name: str) -> None:
    make, data = MODELS[name]
    model = make()
    _randomize_batch_norm_statistics(model)
    proto = catena_onnx.export(model, data(2), output_names='Output_0',
                               dynamic_axes={'Input_0': {0: 'batch'}, 'Output_0': {0: 'batch'}})
    for batch in (3, 5):
        x = data(batch)
        got = next(iter(run_onnxruntime(proto, {'Input_0': x}).values()))
        assert got.shape[0] == batch
        np.testing.assert_allclose(got, _expected(model, x), rtol=1e-4, atol=1e-5)


def test_batch_normalization_statistics_are_named_after_the_link() -> None:
    model = SmallResNet()
    proto = catena_onnx.export(model, _images(1, 3, 16))
    names = {item.name for item in proto.graph.initializer}
    assert {'param_bn_avg_mean', 'param_bn_avg_var', 'param_block1_bn1_avg_mean',
            'param_bn_gamma', 'param_conv_W'} <= names


def test_lstm_language_model() -> None:
    model = RNNLM()
    tokens = np.array([3, 1, 4, 1, 5, 9, 2, 6], np.int32).reshape(1, 8).repeat(3, 0)
    tokens[1] = tokens[1][::-1]
    tokens[2] = (tokens[2] * 7) % 20
    proto = catena_onnx.export(model, tokens)
    got = next(iter(run_onnxruntime(proto, {'Input_0': tokens}).values()))
    np.testing.assert_allclose(got, _expected(model, tokens), rtol=1e-4, atol=1e-5)
    assert 'LSTM' in {node.op_type for node in proto.graph.node}


def test_training_mode_batch_normalization_uses_batch_statistics() -> None:
    model = SmallResNet()
    x = _images(4, 3, 16)
    proto, _, outputs = catena_onnx.export(model, x, train=True, return_named_inout=True)
    got = next(iter(run_onnxruntime(proto, {'Input_0': x}).values()))
    np.testing.assert_allclose(got, next(iter(outputs.values())).array, rtol=1e-4, atol=1e-4)



@pytest.mark.parametrize('name', ['VGG16Layers', 'ResNet50Layers'])
def test_zoo_models_without_weights(name: str) -> None:
    catena_zoo = pytest.importorskip('catena_zoo')
    if not hasattr(catena_zoo, name):
        pytest.skip(f'catena_zoo.{name} does not exist yet (issue 12)')
    model = getattr(catena_zoo, name)(pretrained_model=None)
    x = np.random.default_rng(0).uniform(-100, 100, (1, 3, 224, 224)).astype(np.float32)
    # forward returns {'prob': ...} by default
    proto = catena_onnx.export(model, x, output_names={'prob': 'prob'})
    got = run_onnxruntime(proto, {'Input_0': x})['prob']
    with catena.using_config('train', False), catena.no_backprop_mode():
        expected = model(x)['prob'].array
    np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-5)
