"""CaffeFunction's interface: inputs/outputs/disable, in-place layers, skipped layers, names."""

from __future__ import annotations

import pathlib
import warnings
from typing import Any

import numpy as np
import pytest

import catena
from catena.plugins import get_plugin_manager, hookimpl
from catena.utils import type_check

caffe = pytest.importorskip('catena_zoo.caffe')
schema = pytest.importorskip('catena_zoo.caffe._schema')
caffe_function = pytest.importorskip('catena_zoo.caffe.caffe_function')

RNG = np.random.RandomState(3)
X = RNG.uniform(-1, 1, (2, 3, 6, 6)).astype(np.float32)
W_CONV = RNG.uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32)
W_FC = RNG.uniform(-1, 1, (5, 4 * 4 * 4)).astype(np.float32)


def add(net: Any, type_: str, name: str, bottom: list[str], top: list[str],
        blobs: list[np.ndarray] | None = None, v1: bool = False, **params: Any) -> Any:
    if v1:
        layer = net.layers.add(name=name, type=schema.V1LayerParameter.LayerType.Value(type_))
    else:
        layer = net.layer.add(name=name, type=type_)
    layer.bottom.extend(bottom)
    layer.top.extend(top)
    for array in blobs or []:
        blob = layer.blobs.add()
        blob.shape.dim.extend(array.shape)
        blob.data.extend(array.ravel().tolist())
    for field, values in params.items():
        for key, value in values.items():
            if isinstance(value, list):
                getattr(getattr(layer, field), key).extend(value)
            else:
                setattr(getattr(layer, field), key, value)
    return layer


def save(tmp_path: pathlib.Path, net: Any) -> pathlib.Path:
    path = tmp_path / 'net.caffemodel'
    path.write_bytes(net.SerializeToString())
    return path


def classifier(tmp_path: pathlib.Path, in_place: bool = True) -> pathlib.Path:
    """data -> conv (+relu in place) -> fc -> prob, plus a loss on (fc, label)."""
    net = schema.NetParameter(name='classifier')
    add(net, 'Input', 'input', [], ['data'])
    add(net, 'Convolution', 'conv1/3x3', ['data'], ['conv1'], [W_CONV],
        convolution_param={'num_output': 4, 'kernel_size': [3], 'bias_term': False})
    relu_top = 'conv1' if in_place else 'relu1'
    add(net, 'ReLU', 'relu1', ['conv1'], [relu_top])
    add(net, 'InnerProduct', 'fc', [relu_top], ['fc'], [W_FC],
        inner_product_param={'num_output': 5, 'bias_term': False})
    add(net, 'Softmax', 'prob', ['fc'], ['prob'])
    add(net, 'SoftmaxWithLoss', 'loss', ['fc', 'label'], ['loss'])
    return save(tmp_path, net)


def expected_fc(x: np.ndarray) -> np.ndarray:
    h = np.zeros((x.shape[0], 4, 4, 4))
    for i in range(4):
        for j in range(4):
            h[:, :, i, j] = np.einsum('ncij,ocij->no', x[:, :, i:i + 3, j:j + 3], W_CONV)
    return np.maximum(h, 0).reshape(x.shape[0], -1) @ W_FC.T


def test_outputs_in_the_requested_order(tmp_path: pathlib.Path) -> None:
    func = caffe.CaffeFunction(classifier(tmp_path))
    prob, fc, data = func(inputs={'data': X}, outputs=['prob', 'fc', 'data'])
    np.testing.assert_allclose(fc.array, expected_fc(X), rtol=1e-5, atol=1e-5)
    e = np.exp(fc.array - fc.array.max(axis=1, keepdims=True))
    np.testing.assert_allclose(prob.array, e / e.sum(axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(data.array, X)


@pytest.mark.parametrize('in_place', [True, False])
def test_in_place_layers(tmp_path: pathlib.Path, in_place: bool) -> None:
    func = caffe.CaffeFunction(classifier(tmp_path, in_place))
    fc, = func(inputs={'data': X}, outputs=['fc'])
    np.testing.assert_allclose(fc.array, expected_fc(X), rtol=1e-5, atol=1e-5)
    conv, = func(inputs={'data': X}, outputs=['conv1'])
    assert (conv.array >= 0).all() == in_place  # in place, 'conv1' is the ReLU's output


def test_in_place_chain_of_batchnorm_scale_relu(tmp_path: pathlib.Path) -> None:
    net = schema.NetParameter()
    mean, var = np.array([0.5, -1, 2], np.float32), np.array([1, 4, 0.25], np.float32)
    gamma, beta = np.array([2, -1, 0.5], np.float32), np.array([0.1, 0.2, -3], np.float32)
    add(net, 'BatchNorm', 'bn', ['x'], ['x'], [mean, var, np.ones(1, np.float32)],
        batch_norm_param={'use_global_stats': True, 'eps': 1e-5})
    add(net, 'Scale', 'scale', ['x'], ['x'], [gamma, beta], scale_param={'bias_term': True})
    add(net, 'ReLU', 'relu', ['x'], ['x'])
    func = caffe.CaffeFunction(save(tmp_path, net))
    y, = func(inputs={'x': X}, outputs=['x'])
    c = (slice(None), None, None)
    want = np.maximum(((X - mean[c]) / np.sqrt(var[c] + 1e-5)) * gamma[c] + beta[c], 0)
    np.testing.assert_allclose(y.array, want, rtol=1e-5, atol=1e-5)


def test_disable_leaves_layers_out(tmp_path: pathlib.Path) -> None:
    func = caffe.CaffeFunction(classifier(tmp_path))
    label = np.array([1, 3], np.int32)
    loss, = func(inputs={'data': X, 'label': label}, outputs=['loss'])
    assert loss.shape == ()
    prob, = func(inputs={'data': X}, outputs=['prob'], disable=['loss'])
    with pytest.raises(KeyError, match="layer 'loss', which produces 'loss', is disabled"):
        func(inputs={'data': X, 'label': label}, outputs=['loss'], disable=['loss'])
    with pytest.raises(KeyError, match="'prob' was not computed: .*needs 'fc'; layer 'fc', "
                       "which produces 'fc', is disabled"):
        func(inputs={'data': X}, outputs=['prob'], disable=['fc'])


def test_layers_without_all_their_inputs_are_not_run(tmp_path: pathlib.Path) -> None:
    func = caffe.CaffeFunction(classifier(tmp_path))
    with pytest.raises(KeyError, match="needs 'label'; 'label' is not among the inputs"):
        func(inputs={'data': X}, outputs=['loss'])
    with pytest.raises(KeyError, match="'fc9' is not among the inputs and no layer"):
        func(inputs={'data': X}, outputs=['fc9'])


def test_bad_arguments(tmp_path: pathlib.Path) -> None:
    func = caffe.CaffeFunction(classifier(tmp_path))
    with pytest.raises(TypeError, match='list of blob names'):
        func(inputs={'data': X}, outputs='fc')
    with pytest.raises(TypeError, match='inputs must be a mapping'):
        func(inputs=[X], outputs=['fc'])
    with pytest.raises(ValueError, match='using_config'):
        func(inputs={'data': X}, outputs=['fc'], train=False)


def test_forwards_and_layers_attributes(tmp_path: pathlib.Path) -> None:
    func = caffe.CaffeFunction(classifier(tmp_path))
    assert [name for name, _, _ in func.layers] == ['conv1/3x3', 'relu1', 'fc', 'prob', 'loss']
    assert func.layers[1] == ('relu1', ['conv1'], ['conv1'])
    h = func.forwards['conv1/3x3'](X)
    assert h.shape == (2, 4, 4, 4)
    np.testing.assert_array_equal(func.forwards['relu1'](h).array, np.maximum(h.array, 0))


def test_child_names_keep_caffe_layer_names_and_serialize(tmp_path: pathlib.Path) -> None:
    path = classifier(tmp_path)
    func = caffe.CaffeFunction(path)
    assert isinstance(func['conv1/3x3'], catena.links.Convolution2D)
    assert sorted(name for name, _ in func.namedparams()) == ['/conv1/3x3/W', '/fc/W']
    npz = tmp_path / 'weights.npz'
    catena.serializers.save_npz(npz, func)
    with np.load(npz) as saved:
        assert {'conv1/3x3/W', 'fc/W'} <= set(saved.files)
    other = caffe.CaffeFunction(path)
    other['fc'].W.array[...] = 0
    catena.serializers.load_npz(npz, other)
    np.testing.assert_array_equal(other['fc'].W.array, W_FC)


def unknown_layer_net(tmp_path: pathlib.Path) -> pathlib.Path:
    net = schema.NetParameter()
    add(net, 'ReLU', 'relu', ['x'], ['r'])
    add(net, 'Exotic', 'exotic1', ['r'], ['e'])
    add(net, 'Sigmoid', 'sigmoid', ['r'], ['s'])
    return save(tmp_path, net)


def test_unknown_layer_warns_and_is_skipped(tmp_path: pathlib.Path) -> None:
    with pytest.warns(caffe.UnsupportedCaffeLayerWarning,
                      match="layer 'exotic1' \\(type Exotic\\).*does not support.*skipped"):
        func = caffe.CaffeFunction(unknown_layer_net(tmp_path))
    assert [name for name, _, _ in func.layers] == ['relu', 'sigmoid']
    s, = func(inputs={'x': X}, outputs=['s'])
    np.testing.assert_allclose(s.array, 1 / (1 + np.exp(-np.maximum(X, 0))), rtol=1e-6)
    with pytest.raises(KeyError, match="layer 'exotic1', which produces 'e', was skipped"):
        func(inputs={'x': X}, outputs=['e'])


def test_strict_raises_on_unknown_layer(tmp_path: pathlib.Path) -> None:
    with pytest.raises(caffe.UnsupportedCaffeLayerError, match="'exotic1' \\(type Exotic\\)"):
        caffe.CaffeFunction(unknown_layer_net(tmp_path), strict=True)


@pytest.mark.parametrize('strict', [False, True])
def test_unsupported_configuration_raises(tmp_path: pathlib.Path, strict: bool) -> None:
    net = schema.NetParameter()
    add(net, 'Pooling', 'pool', ['x'], ['y'], pooling_param={'pool': 2, 'kernel_size': 2})
    path = save(tmp_path, net)
    with pytest.raises(caffe.UnsupportedCaffeLayerError, match="'pool'.*STOCHASTIC pooling"):
        caffe.CaffeFunction(path, strict=strict)


def test_inner_product_along_the_batch_axis_is_unsupported(tmp_path: pathlib.Path) -> None:
    net = schema.NetParameter()
    add(net, 'InnerProduct', 'fc', ['x'], ['y'], [W_FC],
        inner_product_param={'num_output': 5, 'axis': 0})
    with pytest.raises(caffe.UnsupportedCaffeLayerError, match='axis 0'):
        caffe.CaffeFunction(save(tmp_path, net))


def test_import_errors_are_runtime_errors_as_in_chainer(tmp_path: pathlib.Path) -> None:
    net = schema.NetParameter()
    add(net, 'Pooling', 'pool', ['x'], ['y'], pooling_param={'pool': 2, 'kernel_size': 2})
    with pytest.raises(RuntimeError):
        caffe.CaffeFunction(save(tmp_path, net))
    net = schema.NetParameter()
    add(net, 'InnerProduct', 'fc', ['x'], ['y'], inner_product_param={'num_output': 5})
    with pytest.raises(RuntimeError) as info:
        caffe.CaffeFunction(save(tmp_path, net))
    assert isinstance(info.value, caffe.CaffeFormatError)
    assert isinstance(info.value, ValueError)


def test_split_map(tmp_path: pathlib.Path) -> None:
    net = schema.NetParameter()
    add(net, 'Split', 'split', ['x'], ['a', 'b'])
    add(net, 'TanH', 'tanh', ['b'], ['y'])
    func = caffe.CaffeFunction(save(tmp_path, net))
    assert func.split_map == {'a': 'x', 'b': 'x'}
    y, = func(inputs={'x': X}, outputs=['y'])
    np.testing.assert_allclose(y.array, np.tanh(X), rtol=1e-6)


def test_engine_fields_are_read_and_ignored(tmp_path: pathlib.Path) -> None:
    net = schema.NetParameter()
    add(net, 'Softmax', 'prob', ['x'], ['p'], softmax_param={'engine': 2})
    add(net, 'ReLU', 'relu', ['x'], ['r'], relu_param={'engine': 1})
    add(net, 'Sigmoid', 'sigmoid', ['x'], ['s'], sigmoid_param={'engine': 2})
    add(net, 'TanH', 'tanh', ['x'], ['t'], tanh_param={'engine': 1})
    add(net, 'Pooling', 'pool', ['x'], ['m'],
        pooling_param={'pool': 0, 'kernel_size': 2, 'stride': 2, 'engine': 2})
    add(net, 'LRN', 'lrn', ['x'], ['n'], lrn_param={'engine': 1})
    add(net, 'Convolution', 'conv', ['x'], ['c'], [W_CONV],
        convolution_param={'num_output': 4, 'kernel_size': [3], 'bias_term': False,
                           'engine': 2})
    path = save(tmp_path, net)
    read = schema.NetParameter.FromString(path.read_bytes())
    assert read.layer[0].softmax_param.engine == schema.message_class(
        'SoftmaxParameter').CUDNN
    func = caffe.CaffeFunction(path, strict=True)
    p, r, m = func(inputs={'x': X}, outputs=['p', 'r', 'm'])
    e = np.exp(X - X.max(axis=1, keepdims=True))
    np.testing.assert_allclose(p.array, e / e.sum(axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(r.array, np.maximum(X, 0))
    np.testing.assert_array_equal(m.array, X.reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5)))


def test_v1_unknown_type_is_named(tmp_path: pathlib.Path) -> None:
    net = schema.NetParameter()
    add(net, 'RELU', 'relu', ['x'], ['x'], v1=True)
    add(net, 'ARGMAX', 'argmax', ['x'], ['top'], v1=True)
    with pytest.warns(caffe.UnsupportedCaffeLayerWarning, match="'argmax' \\(type ArgMax\\)"):
        func = caffe.CaffeFunction(save(tmp_path, net))
    y, = func(inputs={'x': X}, outputs=['x'])
    np.testing.assert_array_equal(y.array, np.maximum(X, 0))


def test_data_and_input_layers_are_ignored_silently(tmp_path: pathlib.Path) -> None:
    net = schema.NetParameter()
    add(net, 'Data', 'data', [], ['data', 'label'])
    add(net, 'Input', 'input', [], ['extra'])
    add(net, 'TanH', 'tanh', ['data'], ['y'])
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        func = caffe.CaffeFunction(save(tmp_path, net), strict=True)
    y, = func(inputs={'data': X}, outputs=['y'])
    np.testing.assert_allclose(y.array, np.tanh(X), rtol=1e-6)


def test_repeated_name_of_a_layer_with_parameters(tmp_path: pathlib.Path) -> None:
    net = schema.NetParameter()
    for _ in range(2):
        add(net, 'InnerProduct', 'fc', ['x'], ['y'], [W_FC],
            inner_product_param={'num_output': 5, 'bias_term': False})
    with pytest.raises(ValueError, match="layer 'fc'.*repeated"):
        caffe.CaffeFunction(save(tmp_path, net))


def test_plugins_add_layer_types(tmp_path: pathlib.Path) -> None:
    def convert_double(func: Any, layer: Any) -> None:
        func.add_layer(layer, lambda x: x * 2.0)

    def convert_relu(func: Any, layer: Any) -> None:  # built-in types stay built in
        raise AssertionError('the built-in ReLU converter must win')

    class Plugin:
        @hookimpl
        def catena_caffe_layers(self) -> dict[str, Any]:
            return {'Double': convert_double, 'ReLU': convert_relu}

    net = schema.NetParameter()
    add(net, 'Double', 'double', ['x'], ['d'])
    add(net, 'ReLU', 'relu', ['d'], ['y'])
    path = save(tmp_path, net)
    pm = get_plugin_manager()
    plugin = Plugin()
    pm.register(plugin, name='test-caffe-layers')
    caffe_function._plugin_converters.cache_clear()
    try:
        func = caffe.CaffeFunction(path, strict=True)
    finally:
        pm.unregister(plugin)
        caffe_function._plugin_converters.cache_clear()
    y, = func(inputs={'x': X}, outputs=['y'])
    np.testing.assert_allclose(y.array, np.maximum(2 * X, 0), rtol=1e-6)


def test_caffe_function_is_reachable_from_catena_links() -> None:
    import catena.links as L
    from catena_zoo import caffe

    assert L.caffe is caffe
    assert L.caffe.CaffeFunction is caffe.CaffeFunction


@pytest.mark.parametrize('v1', [False, True])
def test_accuracy_layer_counts_labels_within_the_top_k(tmp_path: pathlib.Path, v1: bool) -> None:
    net = schema.NetParameter()
    type_top1, type_top3 = ('ACCURACY', 'ACCURACY') if v1 else ('Accuracy', 'Accuracy')
    add(net, type_top1, 'top-1', ['score', 'label'], ['acc1'], v1=v1)
    add(net, type_top3, 'top-3', ['score', 'label'], ['acc3'], v1=v1,
        accuracy_param={'top_k': 3, 'ignore_label': 4})
    func = caffe.CaffeFunction(save(tmp_path, net))
    rng = np.random.RandomState(5)
    score = rng.uniform(-1, 1, (40, 6)).astype(np.float32)
    label = rng.randint(0, 6, 40).astype(np.float32)  # Caffe's labels are floats
    acc1, acc3 = func(inputs={'score': score, 'label': label}, outputs=['acc1', 'acc3'])
    rank = (score > score[np.arange(40), label.astype(int)][:, None]).sum(axis=1)
    kept = label != 4
    assert acc1.array == pytest.approx(np.mean(rank == 0))
    assert acc3.array == pytest.approx(np.mean(rank[kept] < 3))
    assert acc1.dtype == np.float32


def test_accuracy_layer_on_a_label_axis_and_with_every_label_ignored(
        tmp_path: pathlib.Path) -> None:
    net = schema.NetParameter()
    add(net, 'Accuracy', 'acc', ['score', 'label'], ['acc'], accuracy_param={'axis': 1})
    add(net, 'Accuracy', 'none', ['score', 'label'], ['none'],
        accuracy_param={'ignore_label': 1})
    func = caffe.CaffeFunction(save(tmp_path, net))
    score = np.random.RandomState(6).uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    label = np.ones((2, 4), np.int32)
    acc, none = func(inputs={'score': score, 'label': label}, outputs=['acc', 'none'])
    assert acc.array == pytest.approx(np.mean(score.argmax(axis=1) == 1))
    assert none.array == 0
    with pytest.raises(ValueError, match=r'labels must be in \[0, 3\)'):
        func(inputs={'score': score, 'label': label * 3}, outputs=['acc'])


def test_softmax_with_loss_without_labels_names_the_layer(tmp_path: pathlib.Path) -> None:
    net = schema.NetParameter()
    add(net, 'SoftmaxWithLoss', 'loss', ['x'], ['loss'])
    func = caffe.CaffeFunction(save(tmp_path, net))
    with pytest.raises(ValueError, match="SoftmaxWithLoss layer 'loss' takes 2 bottoms.*gives "
                                         "it 1"):
        func(inputs={'x': X[:, :, 0, 0]}, outputs=['loss'])


@pytest.mark.parametrize('pool', [0, 1])
def test_pooling_of_an_input_that_is_not_4d(tmp_path: pathlib.Path, pool: int) -> None:
    # The 2-D pooling function refuses it, with the error it gives in Chainer.
    net = schema.NetParameter()
    add(net, 'Pooling', 'pool', ['x'], ['y'],
        pooling_param={'pool': pool, 'kernel_size': 2, 'pad': 1})
    func = caffe.CaffeFunction(save(tmp_path, net))
    with pytest.raises(type_check.InvalidType, match='x.ndim == 4'):
        func(inputs={'x': X[:, :, 0]}, outputs=['y'])


def test_accuracy_with_a_per_class_top_is_skipped_like_an_unknown_type(
        tmp_path: pathlib.Path) -> None:
    net = schema.NetParameter()
    add(net, 'Accuracy', 'acc', ['x', 'label'], ['accuracy', 'per_class'])
    add(net, 'TanH', 'tanh', ['x'], ['y'])
    path = save(tmp_path, net)
    with pytest.warns(caffe.UnsupportedCaffeLayerWarning, match="'acc'.*per-class.*skipped"):
        func = caffe.CaffeFunction(path)
    assert [name for name, _, _ in func.layers] == ['tanh']
    with pytest.raises(caffe.UnsupportedCaffeLayerError, match='per-class'):
        caffe.CaffeFunction(path, strict=True)
