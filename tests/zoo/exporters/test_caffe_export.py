"""catena_zoo.exporters.caffe.export: round trips through CaffeFunction, the prototxt, errors."""

from __future__ import annotations

import os
import pathlib
from typing import Any

import numpy as np
import pytest
from google.protobuf import text_format

import catena
import catena.functions as F
import catena.links as L
from catena.functions.pooling.average_pooling_nd import AveragePoolingND
from catena_zoo.caffe import CaffeFunction, _schema
from catena_zoo.exporters import caffe as caffe_export

PROTOTXT = 'chainer_model.prototxt'
CAFFEMODEL = 'chainer_model.caffemodel'


class Net(catena.Chain):
    """A chain whose forward is a function of its links (given as keyword arguments)."""

    def __init__(self, forward: Any, **links: catena.Link) -> None:
        super().__init__()
        self._forward = forward
        with self.init_scope():
            for name, link in links.items():
                setattr(self, name, link)

    def forward(self, *xs: Any) -> Any:
        return self._forward(self, *xs)


def _randomize(model: catena.Chain, rng: np.random.Generator) -> None:
    for _, param in sorted(model.namedparams()):
        param.array[...] = rng.standard_normal(param.shape).astype(np.float32) * 0.5


def _read_prototxt(directory: pathlib.Path) -> Any:
    return text_format.Parse((directory / PROTOTXT).read_text(), _schema.NetParameter())


def _round_trip(model: Any, xs: tuple[np.ndarray, ...], directory: pathlib.Path,
                rtol: float = 1e-5, atol: float = 1e-6) -> Any:
    """Exports, reloads with CaffeFunction and compares the last top with the model."""
    caffe_export.export(model, xs if len(xs) > 1 else xs[0], directory)
    net = _read_prototxt(directory)
    with catena.using_config('train', False):
        expected = model(*xs)
    names = ['data'] if len(xs) == 1 else [f'data_{i}' for i in range(len(xs))]
    func = CaffeFunction(directory / CAFFEMODEL, strict=True)
    with catena.using_config('train', False):
        actual, = func(inputs=dict(zip(names, xs)), outputs=[net.layer[-1].top[0]])
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual.array, expected.array, rtol=rtol, atol=atol)
    return net


def _types(net: Any) -> list[str]:
    return [layer.type for layer in net.layer]


# --------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------

def test_mlp_matches_numpy_and_caffe(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(0)
    model = Net(lambda m, x: m.l2(F.relu(m.l1(x))), l1=L.Linear(6, 7), l2=L.Linear(7, 3))
    _randomize(model, rng)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    net = _round_trip(model, (x,), tmp_path)
    assert _types(net) == ['Input', 'InnerProduct', 'ReLU', 'InnerProduct']
    func = CaffeFunction(tmp_path / CAFFEMODEL)
    y, = func(inputs={'data': x}, outputs=['LinearFunction-2-1'])
    h = np.maximum(x @ model.l1.W.array.T + model.l1.b.array, 0)
    reference = h @ model.l2.W.array.T + model.l2.b.array
    np.testing.assert_allclose(y.array, reference, rtol=1e-5, atol=1e-6)


def _convnet() -> Net:
    def forward(m: Any, x: Any) -> Any:
        h = F.relu(m.bn(m.conv(x)))
        h = F.max_pooling_2d(h, 3, stride=2)
        h = F.local_response_normalization(h, n=3)
        h = F.average_pooling_2d(h, 2)
        return F.softmax(m.fc(h))
    return Net(forward, conv=L.Convolution2D(3, 6, 3, pad=1), bn=L.BatchNormalization(6),
               fc=L.Linear(None, 4))


def test_convnet_round_trip(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(1)
    model = _convnet()
    x = rng.standard_normal((2, 3, 9, 9)).astype(np.float32)
    with catena.using_config('train', False):
        model(x)  # initialize fc
    _randomize(model, rng)
    model.bn.avg_mean[...] = rng.standard_normal(6).astype(np.float32)
    model.bn.avg_var[...] = rng.uniform(0.5, 2.0, 6).astype(np.float32)
    net = _round_trip(model, (x,), tmp_path)
    assert _types(net) == ['Input', 'Convolution', 'BatchNorm', 'Scale', 'ReLU', 'Pooling',
                           'LRN', 'Pooling', 'Reshape', 'InnerProduct', 'Softmax']
    bn, scale = net.layer[2], net.layer[3]
    assert bn.name == 'FixedBatchNormalization-1-1_bn'
    assert bn.batch_norm_param.use_global_stats
    assert list(scale.bottom) == [bn.name]
    lrn = net.layer[6].lrn_param
    assert lrn.local_size == 3
    assert lrn.alpha == pytest.approx(1e-4 * 3)


def test_batch_norm_blobs(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(2)
    model = Net(lambda m, x: m.bn(x), bn=L.BatchNormalization(3))
    _randomize(model, rng)
    model.bn.avg_mean[...] = [0.5, -1.0, 2.0]
    model.bn.avg_var[...] = [1.5, 0.25, 4.0]
    x = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
    _round_trip(model, (x,), tmp_path)
    stored = _schema.NetParameter()
    stored.ParseFromString((tmp_path / CAFFEMODEL).read_bytes())
    bn, scale = stored.layer
    assert [list(b.data) for b in bn.blobs] == [[0.5, -1.0, 2.0], [1.5, 0.25, 4.0], [1.0]]
    np.testing.assert_array_equal(np.array(scale.blobs[0].data, np.float32),
                                  model.bn.gamma.array)
    np.testing.assert_array_equal(np.array(scale.blobs[1].data, np.float32),
                                  model.bn.beta.array)


def test_convolution_options_and_deconvolution(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(3)

    def forward(m: Any, x: Any) -> Any:
        return m.deconv(F.relu(m.conv(x)))
    model = Net(forward,
                conv=L.Convolution2D(4, 6, (3, 2), stride=(2, 1), pad=(1, 0), dilate=(1, 2),
                                     groups=2),
                deconv=L.Deconvolution2D(6, 4, 3, stride=2, pad=1, groups=2, nobias=True))
    _randomize(model, rng)
    x = rng.standard_normal((2, 4, 7, 8)).astype(np.float32)
    net = _round_trip(model, (x,), tmp_path)
    conv, deconv = net.layer[1].convolution_param, net.layer[3].convolution_param
    assert (conv.group, list(conv.dilation), conv.stride_h, conv.pad_h) == (2, [1, 2], 2, 1)
    assert net.layer[3].type == 'Deconvolution'
    assert (deconv.num_output, deconv.bias_term, deconv.group) == (4, False, 2)


def test_concat_of_two_branches(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(4)

    def forward(m: Any, x: Any) -> Any:
        return F.concat((F.sigmoid(m.a(x)), F.relu(m.b(x))), axis=1)
    model = Net(forward, a=L.Convolution2D(2, 3, 1), b=L.Convolution2D(2, 5, 3, pad=1))
    _randomize(model, rng)
    x = rng.standard_normal((2, 2, 5, 5)).astype(np.float32)
    net = _round_trip(model, (x,), tmp_path)
    concat = net.layer[-1]
    assert concat.type == 'Concat'
    assert concat.concat_param.axis == 1
    assert list(concat.bottom) == ['Sigmoid-1-1', 'ReLU-1-1']
    assert [layer.name for layer in net.layer[1:3]] == ['Convolution2DFunction-0-1',
                                                       'Sigmoid-1-1']


def test_residual_add(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(5)

    def forward(m: Any, x: Any) -> Any:
        return F.relu(m.c2(F.relu(m.c1(x))) + x)
    model = Net(forward, c1=L.Convolution2D(3, 3, 3, pad=1), c2=L.Convolution2D(3, 3, 3, pad=1))
    _randomize(model, rng)
    x = rng.standard_normal((1, 3, 6, 6)).astype(np.float32)
    net = _round_trip(model, (x,), tmp_path)
    add = net.layer[-2]
    assert (add.type, add.name) == ('Eltwise', '_ + _-3-1')
    assert list(add.bottom) == ['Convolution2DFunction-2-1', 'data']
    assert add.eltwise_param.operation == add.eltwise_param.SUM


def test_reshape_leaky_relu_softmax_axis(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(6)

    def forward(m: Any, x: Any) -> Any:
        h = F.leaky_relu(F.reshape(x, (2, 3, -1)), slope=0.3)
        return F.softmax(h, axis=2)
    model = Net(forward)
    x = rng.standard_normal((2, 12)).astype(np.float32)
    net = _round_trip(model, (x,), tmp_path)
    assert _types(net) == ['Input', 'Reshape', 'ReLU', 'Softmax']
    assert list(net.layer[1].reshape_param.shape.dim) == [2, 3, -1]
    assert net.layer[2].relu_param.negative_slope == pytest.approx(0.3)
    assert net.layer[3].softmax_param.axis == 2


def test_two_inputs(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(7)
    model = Net(lambda m, a, b: m.l(F.sigmoid(a) + b), l=L.Linear(3, 2))
    _randomize(model, rng)
    a, b = (rng.standard_normal((4, 3)).astype(np.float32) for _ in range(2))
    net = _round_trip(model, (a, b), tmp_path)
    assert [layer.name for layer in net.layer[:2]] == ['data_0', 'data_1']
    assert list(net.layer[3].bottom) == ['Sigmoid-0-1', 'data_1']


def test_lrn_with_even_window(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(8)
    model = Net(lambda m, x: F.local_response_normalization(x, n=4, k=1.5, alpha=0.01,
                                                            beta=0.6))
    x = rng.standard_normal((2, 7, 3, 3)).astype(np.float32) * 3
    net = _round_trip(model, (x,), tmp_path)
    assert net.layer[1].lrn_param.local_size == 5  # catena sums 2 channels on each side


# --------------------------------------------------------------------------
# Pooling and Caffe's rounding
# --------------------------------------------------------------------------

@pytest.mark.parametrize(('pool', 'size', 'round_mode'), [
    (lambda x: F.max_pooling_2d(x, 3, 2, 1), 7, None),                     # CEIL covers it
    (lambda x: F.max_pooling_2d(x, 2, 2, cover_all=False), 7, 'FLOOR'),
    (lambda x: F.max_pooling_2d(x, 3, 2, cover_all=True), 8, None),
    (lambda x: F.max_pooling_nd(x, (2, 3), (1, 2), (1, 1)), 6, None),
    (lambda x: F.average_pooling_2d(x, 3, 2, 1), 7, None),                 # pad counts
    (lambda x: F.average_pooling_2d(x, 2, 2), 7, 'FLOOR'),
    (lambda x: F.average_pooling_nd(x, 2, 2, pad_value=None), 7, 'FLOOR'),
], ids=['max-ceil', 'max-floor', 'max-cover-all', 'max-nd', 'avg-pad', 'avg-floor',
        'avg-nd-no-pad-value'])
def test_pooling_round_trip(tmp_path: pathlib.Path, pool: Any, size: int,
                            round_mode: str | None) -> None:
    x = np.random.default_rng(9).standard_normal((2, 2, size, size)).astype(np.float32)
    net = _round_trip(Net(lambda m, x: pool(x)), (x,), tmp_path)
    p = net.layer[1].pooling_param
    assert net.layer[1].type == 'Pooling'
    if round_mode is None:
        assert not p.HasField('round_mode')
    else:
        assert p.round_mode == p.FLOOR


@pytest.mark.parametrize(('pool', 'message'), [
    (lambda x: F.average_pooling_nd(x, 3, 2, 1, pad_value=None), 'counts the padding'),
    (lambda x: AveragePoolingND(2, 3, 2, cover_all=True).apply((x,))[0], 'past the padding'),
    (lambda x: F.max_pooling_2d(x, 2, 1, 2), 'not smaller than its window'),
], ids=['avg-pad-value-none', 'avg-cover-all', 'pad-too-large'])
def test_pooling_that_caffe_cannot_express(tmp_path: pathlib.Path, pool: Any,
                                           message: str) -> None:
    x = np.zeros((1, 1, 6, 6), np.float32)
    with pytest.raises(caffe_export.UnsupportedFunctionError, match=message):
        caffe_export.export(Net(lambda m, x: pool(x)), x, tmp_path)
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------
# Files and errors
# --------------------------------------------------------------------------

def test_prototxt_names_bottoms_and_tops(tmp_path: pathlib.Path) -> None:
    model = Net(lambda m, x: F.softmax(m.l2(F.relu(m.l1(x)))), l1=L.Linear(4, 5),
                l2=L.Linear(5, 2))
    caffe_export.export(model, [np.zeros((3, 4), np.float32)], tmp_path, graph_name='tiny')
    net = _read_prototxt(tmp_path)
    assert net.name == 'tiny'
    rows = [(layer.name, layer.type, list(layer.bottom), list(layer.top))
            for layer in net.layer]
    assert rows == [
        ('data', 'Input', [], ['data']),
        ('LinearFunction-0-1', 'InnerProduct', ['data'], ['LinearFunction-0-1']),
        ('ReLU-1-1', 'ReLU', ['LinearFunction-0-1'], ['ReLU-1-1']),
        ('LinearFunction-2-1', 'InnerProduct', ['ReLU-1-1'], ['LinearFunction-2-1']),
        ('Softmax-3-1', 'Softmax', ['LinearFunction-2-1'], ['Softmax-3-1']),
    ]
    assert list(net.layer[0].input_param.shape[0].dim) == [3, 4]
    assert all(len(layer.blobs) == 0 for layer in net.layer)
    assert net.layer[1].inner_product_param.num_output == 5


def test_export_params_false_writes_only_the_prototxt(tmp_path: pathlib.Path) -> None:
    model = Net(lambda m, x: m.l(x), l=L.Linear(2, 2))
    caffe_export.export(model, np.ones((1, 2), np.float32), tmp_path, export_params=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [PROTOTXT]


def test_directory_is_created_and_none_means_cwd(tmp_path: pathlib.Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    model = Net(lambda m, x: F.relu(x))
    x = catena.Variable(np.ones((1, 2), np.float32))
    caffe_export.export(model, x, tmp_path / 'a' / 'b')
    assert sorted(p.name for p in (tmp_path / 'a' / 'b').iterdir()) == [CAFFEMODEL, PROTOTXT]
    here = tmp_path / 'here'
    here.mkdir()
    monkeypatch.chdir(here)
    caffe_export.export(model, (x,))
    assert sorted(p.name for p in here.iterdir()) == [CAFFEMODEL, PROTOTXT]


def test_existing_files_are_replaced_without_leftovers(tmp_path: pathlib.Path) -> None:
    (tmp_path / PROTOTXT).write_text('old')
    (tmp_path / CAFFEMODEL).write_bytes(b'old')
    caffe_export.export(Net(lambda m, x: F.sigmoid(x)), np.ones((1, 2), np.float32), tmp_path)
    assert sorted(os.listdir(tmp_path)) == [CAFFEMODEL, PROTOTXT]
    assert 'Sigmoid' in (tmp_path / PROTOTXT).read_text()


def test_unsupported_functions_are_all_listed_and_nothing_is_written(
        tmp_path: pathlib.Path) -> None:
    model = Net(lambda m, x: F.exp(F.tanh(m.l(x))), l=L.Linear(3, 2))
    target = tmp_path / 'out'
    with pytest.raises(caffe_export.UnsupportedFunctionError) as info:
        caffe_export.export(model, np.zeros((5, 3), np.float32), target)
    message = str(info.value)
    assert "Tanh (label 'Tanh', layer 'Tanh-1-1', inputs (5, 2) float32)" in message
    assert "Exp (label 'exp', layer 'exp-2-1'" in message
    assert len(info.value.problems) == 2
    assert not target.exists()
    (tmp_path / 'kept').mkdir()
    with pytest.raises(caffe_export.UnsupportedFunctionError, match='Tanh'):
        caffe_export.export(model, np.zeros((5, 3), np.float32), tmp_path / 'kept')
    assert list((tmp_path / 'kept').iterdir()) == []


def _with_weight(forward: Any, shape: tuple[int, ...]) -> Net:
    model = Net(forward)
    with model.init_scope():
        model.W = catena.Parameter(np.ones(shape, np.float32))
    return model


def _bn_over_two_axes(m: Any, x: Any) -> Any:
    stats = (np.ones((5, 3), np.float32),) * 4
    return F.fixed_batch_normalization(x, *stats, axis=(0,))


@pytest.mark.parametrize(('forward', 'w_shape', 'x_shape', 'message'), [
    (lambda m, x: F.convolution_2d(x, m.W, stride=2, cover_all=True), (1, 2, 2, 2),
     (1, 2, 7, 7), 'cover_all=True'),
    (lambda m, x: x + m.W, (2, 3), (2, 3), 'input 1 is a constant'),
    (lambda m, x: x + F.sum(x, axis=1, keepdims=True), (1,), (2, 3), 'broadcasts'),
    (_bn_over_two_axes, (1,), (2, 5, 3), 'per channel'),
    (lambda m, x: F.linear(x, F.relu(x)[:2]), (1,), (2, 2), 'input 1 is computed'),
], ids=['conv-cover-all', 'add-parameter', 'add-broadcast', 'bn-axes', 'computed-weight'])
def test_configurations_caffe_cannot_express(tmp_path: pathlib.Path, forward: Any,
                                             w_shape: tuple[int, ...],
                                             x_shape: tuple[int, ...], message: str) -> None:
    model = _with_weight(forward, w_shape)
    with pytest.raises(caffe_export.UnsupportedFunctionError, match=message):
        caffe_export.export(model, np.ones(x_shape, np.float32), tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(('args', 'named'), [
    ({'x': np.zeros(2, np.float32)}, 'dict'),
    ('data', 'str'),
    ([np.zeros(2, np.float32), 3], r'args\[1\].*builtins.int'),
    ((), 'empty tuple'),
])
def test_bad_args_type(tmp_path: pathlib.Path, args: Any, named: str) -> None:
    with pytest.raises(TypeError, match=named):
        caffe_export.export(Net(lambda m, x: F.relu(x)), args, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_other_bad_arguments(tmp_path: pathlib.Path) -> None:
    x = np.ones((1, 2), np.float32)
    with pytest.raises(TypeError, match='callable'):
        caffe_export.export(object(), x, tmp_path)
    with pytest.raises(TypeError, match='graph_name'):
        caffe_export.export(Net(lambda m, x: F.relu(x)), x, tmp_path, graph_name=3)
    with pytest.raises(TypeError, match='directory'):
        caffe_export.export(Net(lambda m, x: F.relu(x)), x, 5)
    with pytest.raises(TypeError, match='return a Variable'):
        caffe_export.export(Net(lambda m, x: x.array), x, tmp_path)
    with pytest.raises(ValueError, match='not computed from its arguments'):
        caffe_export.export(_with_weight(lambda m, x: (F.relu(x), m.W), (2,)), x, tmp_path)
    (tmp_path / 'file').write_text('')
    with pytest.raises(NotADirectoryError, match='file'):
        caffe_export.export(Net(lambda m, x: F.relu(x)), x, tmp_path / 'file')
    assert sorted(p.name for p in tmp_path.iterdir()) == ['file']


def test_runs_the_model_in_test_mode(tmp_path: pathlib.Path) -> None:
    seen = []

    def forward(m: Any, x: Any) -> Any:
        seen.append(catena.config.train)
        return F.dropout(F.relu(x), 0.9)  # identity in test mode; recorded nowhere

    caffe_export.export(Net(forward), np.ones((2, 3), np.float32), tmp_path)
    assert seen == [False]
    assert catena.config.train is True
    assert _types(_read_prototxt(tmp_path)) == ['Input', 'ReLU']
