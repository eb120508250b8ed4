"""Hand-built caffemodels, one layer each, checked against NumPy written from Caffe's formulas.

Every case is serialised with the importer's schema in the current ``layer``
format and, where Caffe's V1 format has the type, in the V1 ``layers``
format too (with the legacy 4-D blob dimensions).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import catena

caffe = pytest.importorskip('catena_zoo.caffe')
schema = pytest.importorskip('catena_zoo.caffe._schema')

RNG = np.random.RandomState(7)


def rand(*shape: int) -> np.ndarray:
    return RNG.uniform(-1, 1, shape).astype(np.float32)


# --------------------------------------------------------------------------
# Writing caffemodels
# --------------------------------------------------------------------------

def fill(message: Any, values: dict[str, Any]) -> None:
    for key, value in values.items():
        if isinstance(value, dict):
            fill(getattr(message, key), value)
        elif isinstance(value, (list, tuple)):
            getattr(message, key).extend(value)
        else:
            setattr(message, key, value)


def add_layer(net: Any, v1: bool, type_: str, name: str, bottom: list[str], top: list[str],
              blobs: tuple[np.ndarray, ...] | list[np.ndarray] = (),
              **params: dict[str, Any]) -> Any:
    if v1:
        layer = net.layers.add(name=name)
        layer.type = schema.V1LayerParameter.LayerType.Value(V1_NAMES[type_])
    else:
        layer = net.layer.add(name=name, type=type_)
    layer.bottom.extend(bottom)
    layer.top.extend(top)
    for array in blobs:
        blob = layer.blobs.add()
        if v1:
            legacy = (1,) * (4 - array.ndim) + array.shape
            blob.num, blob.channels, blob.height, blob.width = legacy
        else:
            blob.shape.dim.extend(array.shape)
        blob.data.extend(array.ravel().tolist())
    for field, values in params.items():
        fill(getattr(layer, field), values)
    return layer


V1_NAMES = {
    'AbsVal': 'ABSVAL', 'Concat': 'CONCAT', 'Convolution': 'CONVOLUTION',
    'Deconvolution': 'DECONVOLUTION', 'Dropout': 'DROPOUT', 'Eltwise': 'ELTWISE',
    'Flatten': 'FLATTEN', 'InnerProduct': 'INNER_PRODUCT', 'LRN': 'LRN', 'Pooling': 'POOLING',
    'Power': 'POWER', 'ReLU': 'RELU', 'Sigmoid': 'SIGMOID', 'Slice': 'SLICE',
    'Softmax': 'SOFTMAX', 'SoftmaxWithLoss': 'SOFTMAX_LOSS', 'Split': 'SPLIT', 'TanH': 'TANH',
    'Data': 'DATA',
}


# --------------------------------------------------------------------------
# NumPy references (Caffe's definitions, written out with loops)
# --------------------------------------------------------------------------

def conv_ref(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: tuple[int, int],
             pad: tuple[int, int], dilation: tuple[int, int] = (1, 1),
             groups: int = 1) -> np.ndarray:
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    ekh, ekw = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    oh = (h + 2 * pad[0] - ekh) // stride[0] + 1
    ow = (wd + 2 * pad[1] - ekw) // stride[1] + 1
    y = np.zeros((n, o, oh, ow), np.float64)
    per_group = o // groups
    for out in range(o):
        g = out // per_group
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg,
                           i * stride[0]:i * stride[0] + ekh:dilation[0],
                           j * stride[1]:j * stride[1] + ekw:dilation[1]]
                y[:, out, i, j] = (patch * w[out]).sum(axis=(1, 2, 3))
    if b is not None:
        y += b[None, :, None, None]
    return y


def deconv_ref(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: int, pad: int,
               groups: int = 1) -> np.ndarray:
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    full = np.zeros((n, og * groups, (h - 1) * stride + kh, (wd - 1) * stride + kw))
    per_group = c // groups
    for ch in range(c):
        g = ch // per_group
        for i in range(h):
            for j in range(wd):
                full[:, g * og:(g + 1) * og, i * stride:i * stride + kh,
                     j * stride:j * stride + kw] += x[:, ch, i, j][:, None, None, None] * w[ch]
    y = full[:, :, pad:full.shape[2] - pad, pad:full.shape[3] - pad]
    if b is not None:
        y = y + b[None, :, None, None]
    return y


def caffe_pool_ref(x: np.ndarray, k: int, s: int, p: int, mode: str,
                   ceil: bool = True) -> np.ndarray:
    h, w = x.shape[2:]

    def size(length: int) -> int:
        span = length + 2 * p - k
        out = (math.ceil(span / s) if ceil else span // s) + 1
        if p and (out - 1) * s >= length + p:
            out -= 1
        return out

    oh, ow = size(h), size(w)
    y = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            hs, ws = i * s - p, j * s - p
            he, we = min(hs + k, h + p), min(ws + k, w + p)
            count = (he - hs) * (we - ws)
            region = x[:, :, max(hs, 0):min(he, h), max(ws, 0):min(we, w)]
            y[:, :, i, j] = region.max(axis=(2, 3)) if mode == 'max' else (
                region.sum(axis=(2, 3)) / count)
    return y


def lrn_across_ref(x: np.ndarray, n: int, alpha: float, beta: float, k: float) -> np.ndarray:
    # Caffe's window for odd n; Caffe refuses an even n, which gets Chainer's
    # n // 2 channels on each side.
    c = x.shape[1]
    y = np.empty_like(x, dtype=np.float64)
    for ch in range(c):
        window = x[:, max(ch - n // 2, 0):min(ch + n // 2 + 1, c)]
        y[:, ch] = x[:, ch] / (k + alpha / n * (window ** 2).sum(axis=1)) ** beta
    return y


def lrn_within_ref(x: np.ndarray, n: int, alpha: float, beta: float) -> np.ndarray:
    p = (n - 1) // 2
    sq = np.pad(x.astype(np.float64) ** 2, ((0, 0), (0, 0), (p, p), (p, p)))
    y = np.empty_like(x, dtype=np.float64)
    for i in range(x.shape[2]):
        for j in range(x.shape[3]):
            mean = sq[:, :, i:i + n, j:j + n].sum(axis=(2, 3)) / (n * n)
            y[:, :, i, j] = x[:, :, i, j] / (1 + alpha * mean) ** beta
    return y


def softmax_ref(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def bcast(v: np.ndarray, ndim: int, axis: int) -> np.ndarray:
    axis = axis % ndim
    return v.reshape((1,) * axis + v.shape + (1,) * (ndim - axis - v.ndim))


# --------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------

@dataclasses.dataclass
class Case:
    id: str
    type: str
    inputs: list[np.ndarray]
    expected: Callable[[], list[np.ndarray]]
    blobs: list[np.ndarray] = dataclasses.field(default_factory=list)
    params: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    tops: int = 1
    v1: bool = True
    train: bool = False


X4 = rand(2, 4, 7, 7)
X2 = rand(3, 6)
X8 = rand(2, 3, 8, 8)
W_CONV, B_CONV = rand(6, 2, 3, 3), rand(6)
W_DIL = rand(3, 4, 2, 3)
W_DECONV, B_DECONV = rand(4, 3, 3, 3), rand(6)
W_IP, B_IP = rand(5, 4 * 7 * 7), rand(5)
W_IP_T = rand(6, 5)
BN_MEAN, BN_VAR = rand(4) * 3, np.abs(rand(4)) * 4 + 0.1
SCALE_W, SCALE_B = rand(4), rand(4)
SCALE_HW = rand(4, 7)
PRELU_W = rand(4) * 0.5
LABELS = np.array([1, 5, 0], np.int32)

CASES = [
    Case('conv-groups-stride-pad', 'Convolution', [X4],
         lambda: [conv_ref(X4, W_CONV, B_CONV, (2, 2), (1, 1), groups=2)],
         [W_CONV, B_CONV],
         {'convolution_param': {'num_output': 6, 'kernel_size': [3], 'stride': [2], 'pad': [1],
                                'group': 2}}),
    Case('conv-hw-dilation-nobias', 'Convolution', [X4],
         lambda: [conv_ref(X4, W_DIL, None, (1, 2), (2, 0), dilation=(2, 1))],
         [W_DIL],
         {'convolution_param': {'num_output': 3, 'kernel_h': 2, 'kernel_w': 3, 'stride_h': 1,
                                'stride_w': 2, 'pad_h': 2, 'pad_w': 0, 'dilation': [2, 1],
                                'bias_term': False}}),
    Case('deconv-groups', 'Deconvolution', [X4],
         lambda: [deconv_ref(X4, W_DECONV, B_DECONV, 2, 1, groups=2)],
         [W_DECONV, B_DECONV],
         {'convolution_param': {'num_output': 6, 'kernel_size': [3], 'stride': [2], 'pad': [1],
                                'group': 2}}),
    Case('innerproduct', 'InnerProduct', [X4],
         lambda: [X4.reshape(2, -1) @ W_IP.T + B_IP], [W_IP, B_IP],
         {'inner_product_param': {'num_output': 5}}),
    Case('innerproduct-transpose-nobias', 'InnerProduct', [X2],
         lambda: [X2 @ W_IP_T], [W_IP_T],
         {'inner_product_param': {'num_output': 5, 'transpose': True, 'bias_term': False}},
         v1=False),
    Case('innerproduct-axis2', 'InnerProduct', [X4[:, :, :, :6]],
         lambda: [X4[:, :, :, :6].reshape(2, 4, 42) @ W_IP[:, :42].T + B_IP],
         [W_IP[:, :42].copy(), B_IP],
         {'inner_product_param': {'num_output': 5, 'axis': 2}}, v1=False),
    Case('lrn-across-5', 'LRN', [X4], lambda: [lrn_across_ref(X4, 5, 0.3, 0.75, 2.0)],
         params={'lrn_param': {'local_size': 5, 'alpha': 0.3, 'beta': 0.75, 'k': 2.0}}),
    Case('lrn-across-even', 'LRN', [X4], lambda: [lrn_across_ref(X4, 4, 0.5, 0.6, 1.0)],
         params={'lrn_param': {'local_size': 4, 'alpha': 0.5, 'beta': 0.6}}),
    Case('lrn-within', 'LRN', [X4], lambda: [lrn_within_ref(X4, 3, 0.7, 0.75)],
         params={'lrn_param': {'local_size': 3, 'alpha': 0.7, 'norm_region': 1}}),
    Case('maxpool-ceil', 'Pooling', [X8], lambda: [caffe_pool_ref(X8, 3, 2, 0, 'max')],
         params={'pooling_param': {'pool': 0, 'kernel_size': 3, 'stride': 2}}),
    Case('maxpool-pad', 'Pooling', [X4], lambda: [caffe_pool_ref(X4, 2, 2, 1, 'max')],
         params={'pooling_param': {'pool': 0, 'kernel_size': 2, 'stride': 2, 'pad': 1}}),
    Case('avepool-ceil-pad', 'Pooling', [X8], lambda: [caffe_pool_ref(X8, 3, 2, 1, 'ave')],
         params={'pooling_param': {'pool': 1, 'kernel_size': 3, 'stride': 2, 'pad': 1}}),
    Case('avepool-pad-inside', 'Pooling', [X4], lambda: [caffe_pool_ref(X4, 3, 2, 1, 'ave')],
         params={'pooling_param': {'pool': 1, 'kernel_size': 3, 'stride': 2, 'pad': 1}}),
    Case('maxpool-floor', 'Pooling', [X8],
         lambda: [caffe_pool_ref(X8, 3, 2, 1, 'max', ceil=False)],
         params={'pooling_param': {'pool': 0, 'kernel_size': 3, 'stride': 2, 'pad': 1,
                                   'round_mode': 1}}, v1=False),
    Case('avepool-hw', 'Pooling', [X4], lambda: [caffe_pool_ref(X4, 2, 3, 0, 'ave')],
         params={'pooling_param': {'pool': 1, 'kernel_h': 2, 'kernel_w': 2, 'stride_h': 3,
                                   'stride_w': 3}}),
    Case('avepool-floor', 'Pooling', [X8],
         lambda: [caffe_pool_ref(X8, 3, 2, 1, 'ave', ceil=False)],
         params={'pooling_param': {'pool': 1, 'kernel_size': 3, 'stride': 2, 'pad': 1,
                                   'round_mode': 1}}, v1=False),
    Case('pool-global-ave', 'Pooling', [X4], lambda: [X4.mean(axis=(2, 3), keepdims=True)],
         params={'pooling_param': {'pool': 1, 'global_pooling': True}}),
    Case('pool-global-max', 'Pooling', [X4], lambda: [X4.max(axis=(2, 3), keepdims=True)],
         params={'pooling_param': {'pool': 0, 'global_pooling': True}}),
    Case('relu', 'ReLU', [X4], lambda: [np.maximum(X4, 0)]),
    Case('relu-leaky', 'ReLU', [X4], lambda: [np.where(X4 > 0, X4, 0.1 * X4)],
         params={'relu_param': {'negative_slope': 0.1}}),
    Case('reshape', 'Reshape', [X4], lambda: [X4.reshape(2, 4, 49)],
         params={'reshape_param': {'shape': {'dim': [0, 0, -1]}}}, v1=False),
    Case('reshape-axis', 'Reshape', [X4], lambda: [X4.reshape(2, 2, 2, 7, 7)],
         params={'reshape_param': {'shape': {'dim': [2, -1]}, 'axis': 1, 'num_axes': 1}},
         v1=False),
    Case('batchnorm-factor', 'BatchNorm', [X4],
         lambda: [(X4 - bcast(BN_MEAN / 2, 4, 1)) / np.sqrt(bcast(BN_VAR / 2, 4, 1) + 1e-5)],
         [BN_MEAN, BN_VAR, np.array([2.0], np.float32)],
         {'batch_norm_param': {'use_global_stats': True}}, v1=False, train=True),
    Case('batchnorm-factor-zero', 'BatchNorm', [X4], lambda: [X4 / np.sqrt(1e-3)],
         [BN_MEAN, BN_VAR, np.array([0.0], np.float32)],
         {'batch_norm_param': {'use_global_stats': True, 'eps': 1e-3}}, v1=False),
    Case('batchnorm-two-blobs', 'BatchNorm', [X4],
         lambda: [(X4 - bcast(BN_MEAN, 4, 1)) / np.sqrt(bcast(BN_VAR, 4, 1) + 1e-5)],
         [BN_MEAN, BN_VAR], v1=False),
    Case('eltwise-sum-coeff', 'Eltwise', [X4, X4 * 2, X4 - 1],
         lambda: [0.5 * X4 - 2 * (X4 * 2) + 3 * (X4 - 1)],
         params={'eltwise_param': {'operation': 1, 'coeff': [0.5, -2.0, 3.0]}}),
    Case('eltwise-prod', 'Eltwise', [X4, X4 + 1], lambda: [X4 * (X4 + 1)],
         params={'eltwise_param': {'operation': 0}}),
    Case('eltwise-max', 'Eltwise', [X4, -X4, X4 * 0.5],
         lambda: [np.maximum(np.maximum(X4, -X4), X4 * 0.5)],
         params={'eltwise_param': {'operation': 2}}),
    Case('eltwise-max-ignores-coeff', 'Eltwise', [X4, -X4],
         lambda: [np.maximum(X4, -X4)],
         params={'eltwise_param': {'operation': 2, 'coeff': [3.0, -1.0]}}),
    Case('scale-bias', 'Scale', [X4],
         lambda: [X4 * bcast(SCALE_W, 4, 1) + bcast(SCALE_B, 4, 1)], [SCALE_W, SCALE_B],
         {'scale_param': {'bias_term': True}}, v1=False),
    Case('scale-two-axes', 'Scale', [X4], lambda: [X4 * bcast(SCALE_HW, 4, 1)], [SCALE_HW],
         {'scale_param': {'num_axes': 2}}, v1=False),
    Case('scale-scalar', 'Scale', [X4], lambda: [X4 * 1.5 + 0.25],
         [np.array(1.5, np.float32), np.array(0.25, np.float32)],
         {'scale_param': {'num_axes': 0, 'bias_term': True}}, v1=False),
    Case('scale-negative-axis', 'Scale', [X4], lambda: [X4 * bcast(SCALE_HW[0], 4, -1)],
         [SCALE_HW[0].copy()], {'scale_param': {'axis': -1}}, v1=False),
    Case('scale-second-bottom', 'Scale', [X4, SCALE_W],
         lambda: [X4 * bcast(SCALE_W, 4, 1) + bcast(SCALE_B, 4, 1)], [SCALE_B],
         {'scale_param': {'bias_term': True}}, v1=False),
    Case('slice-points', 'Slice', [X4], lambda: [X4[:, :1], X4[:, 1:3], X4[:, 3:]],
         params={'slice_param': {'slice_point': [1, 3]}}, tops=3),
    Case('slice-equal-axis', 'Slice', [X4], lambda: [X4[:, :, :, :3], X4[:, :, :, 3:6]],
         params={'slice_param': {'axis': -1, 'slice_point': [3, 6]}}, tops=2, v1=False),
    Case('slice-dim', 'Slice', [X2], lambda: [X2[:, :3], X2[:, 3:]],
         params={'slice_param': {'slice_dim': 1}}, tops=2),
    Case('softmax', 'Softmax', [X4], lambda: [softmax_ref(X4, 1)]),
    Case('softmax-last-axis', 'Softmax', [X4], lambda: [softmax_ref(X4, -1)],
         params={'softmax_param': {'axis': -1}}, v1=False),
    Case('sigmoid', 'Sigmoid', [X4], lambda: [1 / (1 + np.exp(-X4))]),
    Case('tanh', 'TanH', [X4], lambda: [np.tanh(X4)]),
    Case('absval', 'AbsVal', [X4], lambda: [np.abs(X4)]),
    Case('elu', 'ELU', [X4], lambda: [np.where(X4 > 0, X4, 0.5 * (np.exp(X4) - 1))],
         params={'elu_param': {'alpha': 0.5}}, v1=False),
    Case('prelu', 'PReLU', [X4], lambda: [np.where(X4 > 0, X4, bcast(PRELU_W, 4, 1) * X4)],
         [PRELU_W], v1=False),
    Case('prelu-shared', 'PReLU', [X4], lambda: [np.where(X4 > 0, X4, 0.2 * X4)],
         [np.array([0.2], np.float32)], {'prelu_param': {'channel_shared': True}}, v1=False),
    Case('power', 'Power', [X4], lambda: [(1.0 + 0.5 * X4) ** 2],
         params={'power_param': {'power': 2.0, 'scale': 0.5, 'shift': 1.0}}),
    Case('power-linear', 'Power', [X4], lambda: [3.0 * X4 - 1.0],
         params={'power_param': {'scale': 3.0, 'shift': -1.0}}),
    Case('flatten', 'Flatten', [X4], lambda: [X4.reshape(2, -1)]),
    Case('flatten-end-axis', 'Flatten', [X4], lambda: [X4.reshape(2, 28, 7)],
         params={'flatten_param': {'axis': 1, 'end_axis': 2}}, v1=False),
    Case('concat', 'Concat', [X4, X4[:, :2]], lambda: [np.concatenate([X4, X4[:, :2]], 1)]),
    Case('concat-axis', 'Concat', [X4, X4[:, :, :3]],
         lambda: [np.concatenate([X4, X4[:, :, :3]], 2)],
         params={'concat_param': {'axis': 2}}, v1=False),
    Case('concat-dim', 'Concat', [X2, X2], lambda: [np.concatenate([X2, X2], 0)],
         params={'concat_param': {'concat_dim': 0}}),
    Case('split', 'Split', [X4], lambda: [X4, X4], tops=2),
    Case('dropout-test-mode', 'Dropout', [X4], lambda: [X4],
         params={'dropout_param': {'dropout_ratio': 0.3}}),
    Case('softmax-loss', 'SoftmaxWithLoss', [X2, LABELS],
         lambda: [-np.log(softmax_ref(X2, 1)[np.arange(3), LABELS]).mean()]),
    Case('softmax-loss-ignore', 'SoftmaxWithLoss', [X2, np.array([1, 2, 2], np.float32)],
         lambda: [-np.log(softmax_ref(X2, 1)[0, 1])],
         params={'loss_param': {'ignore_label': 2}}),
    Case('softmax-loss-none', 'SoftmaxWithLoss', [X2, LABELS],
         lambda: [-np.log(softmax_ref(X2, 1)[np.arange(3), LABELS]).sum()],
         params={'loss_param': {'normalization': 3}}, v1=False),
    Case('softmax-loss-batch', 'SoftmaxWithLoss', [X2, np.array([1, 2, 2], np.int32)],
         lambda: [-np.log(softmax_ref(X2, 1)[0, 1]) / 3],
         params={'loss_param': {'normalization': 2, 'ignore_label': 2}}, v1=False),
    Case('softmax-loss-full', 'SoftmaxWithLoss', [X2, np.array([1, 2, 2], np.int32)],
         lambda: [-np.log(softmax_ref(X2, 1)[0, 1]) / 3],
         params={'loss_param': {'normalization': 0, 'ignore_label': 2}}, v1=False),
]


def build(tmp_path: Any, case: Case, v1: bool) -> tuple[Any, list[str], list[str]]:
    net = schema.NetParameter(name='case')
    bottoms = [f'in{i}' for i in range(len(case.inputs))]
    tops = [f'out{i}' for i in range(case.tops)]
    add_layer(net, v1, case.type, f'{case.type.lower()}/layer', bottoms, tops, case.blobs,
              **case.params)
    path = tmp_path / 'case.caffemodel'
    path.write_bytes(net.SerializeToString())
    return path, bottoms, tops


PARAMS = [pytest.param(case, False, id=f'{case.id}-layer') for case in CASES] + [
    pytest.param(case, True, id=f'{case.id}-v1') for case in CASES if case.v1]


@pytest.mark.parametrize(('case', 'v1'), PARAMS)
def test_layer_matches_numpy(tmp_path: Any, case: Case, v1: bool) -> None:
    path, bottoms, tops = build(tmp_path, case, v1)
    func = caffe.CaffeFunction(path, strict=True)
    with catena.using_config('train', case.train):
        outputs = func(inputs=dict(zip(bottoms, case.inputs)), outputs=tops)
    expected = case.expected()
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        assert isinstance(got, catena.Variable)
        assert got.shape == np.shape(want)
        np.testing.assert_allclose(got.array, want, rtol=1e-5, atol=1e-5)


def test_layers_with_parameters_become_child_links(tmp_path: Any) -> None:
    path, _, _ = build(tmp_path, CASES[0], v1=False)
    func = caffe.CaffeFunction(path)
    conv = func['convolution/layer']
    assert isinstance(conv, catena.links.Convolution2D)
    np.testing.assert_array_equal(conv.W.array, W_CONV)
    np.testing.assert_array_equal(conv.b.array, B_CONV)
    assert sorted(name for name, _ in func.namedparams()) == [
        '/convolution/layer/W', '/convolution/layer/b']


def test_batchnorm_without_global_stats_follows_train_mode(tmp_path: Any) -> None:
    net = schema.NetParameter()
    add_layer(net, False, 'BatchNorm', 'bn', ['x'], ['y'],
              [BN_MEAN, BN_VAR, np.array([1.0], np.float32)])
    path = tmp_path / 'bn.caffemodel'
    path.write_bytes(net.SerializeToString())
    func = caffe.CaffeFunction(path)
    with catena.using_config('train', False):
        y, = func(inputs={'x': X4}, outputs=['y'])
    stored = (X4 - bcast(BN_MEAN, 4, 1)) / np.sqrt(bcast(BN_VAR, 4, 1) + 1e-5)
    np.testing.assert_allclose(y.array, stored, rtol=1e-5, atol=1e-5)
    with catena.using_config('train', True):
        y, = func(inputs={'x': X4}, outputs=['y'])
    mean = X4.mean(axis=(0, 2, 3), keepdims=True)
    var = X4.var(axis=(0, 2, 3), keepdims=True)
    np.testing.assert_allclose(y.array, (X4 - mean) / np.sqrt(var + 1e-5), rtol=1e-4,
                               atol=1e-4)


def test_dropout_in_train_mode_drops_and_rescales(tmp_path: Any) -> None:
    case = next(c for c in CASES if c.id == 'dropout-test-mode')
    path, bottoms, tops = build(tmp_path, case, v1=False)
    func = caffe.CaffeFunction(path)
    x = np.ones((50, 40), np.float32)
    with catena.using_config('train', True):
        y, = func(inputs={'in0': x}, outputs=['out0'])
    values = np.unique(y.array)
    np.testing.assert_allclose(values, [0.0, 1 / 0.7], rtol=1e-6)
    assert 0.2 < (y.array == 0).mean() < 0.4


def test_v1_network_of_several_layers(tmp_path: Any) -> None:
    # A small V1 net in the style of the BVLC reference models: conv, relu in
    # place, max pooling, LRN, inner product, softmax.
    net = schema.NetParameter(name='v1net')
    net.input.append('data')
    add_layer(net, True, 'Data', 'data', [], ['data', 'label'])
    add_layer(net, True, 'Convolution', 'conv1', ['data'], ['conv1'], [W_CONV, B_CONV],
              convolution_param={'num_output': 6, 'kernel_size': [3], 'group': 2})
    add_layer(net, True, 'ReLU', 'relu1', ['conv1'], ['conv1'])
    add_layer(net, True, 'Pooling', 'pool1', ['conv1'], ['pool1'],
              pooling_param={'pool': 0, 'kernel_size': 2, 'stride': 2})
    add_layer(net, True, 'LRN', 'norm1', ['pool1'], ['norm1'],
              lrn_param={'local_size': 5, 'alpha': 1e-2, 'beta': 0.75})
    w_fc = rand(3, 6 * 3 * 3)
    add_layer(net, True, 'InnerProduct', 'fc', ['norm1'], ['fc'], [w_fc, B_IP[:3]],
              inner_product_param={'num_output': 3})
    add_layer(net, True, 'Softmax', 'prob', ['fc'], ['prob'])
    path = tmp_path / 'v1.caffemodel'
    path.write_bytes(net.SerializeToString())
    func = caffe.CaffeFunction(path, strict=True)
    fc, prob = func(inputs={'data': X4}, outputs=['fc', 'prob'])
    h = np.maximum(conv_ref(X4, W_CONV, B_CONV, (1, 1), (0, 0), groups=2), 0)
    h = lrn_across_ref(caffe_pool_ref(h, 2, 2, 0, 'max'), 5, 1e-2, 0.75, 1.0)
    want = h.reshape(2, -1) @ w_fc.T + B_IP[:3]
    np.testing.assert_allclose(fc.array, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(prob.array, softmax_ref(want, 1), rtol=1e-5, atol=1e-6)
    assert sorted(name for name, _ in func.namedparams()) == [
        '/conv1/W', '/conv1/b', '/fc/W', '/fc/b']
