"""The importer calls catena's public functions and links as Chainer's importer did.

Code written for Chainer may patch ``chainer.functions.concat`` or
``chainer.links.Linear.forward`` around a ``CaffeFunction`` and look at the
calls; these tests patch catena's names and check the arguments each layer
passes (where catena's result is the same as with Chainer's call).
"""

from __future__ import annotations

import pathlib
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

import numpy as np
import pytest

import catena
import catena.functions as F
import catena.links as L

caffe = pytest.importorskip('catena_zoo.caffe')
schema = pytest.importorskip('catena_zoo.caffe._schema')

RNG = np.random.RandomState(7)


@dataclass
class Call:
    id: str
    target: Any  # (object, attribute name) that is patched
    layer: dict[str, Any]
    shapes: list[tuple[int, ...]]
    expected: Any  # (inputs) -> mock.call(...)
    blobs: list[np.ndarray] = field(default_factory=list)


CALLS = [
    Call('concat', (F, 'concat'),
         {'type': 'Concat', 'concat_param': {'axis': 2}}, [(3, 2, 3), (3, 2, 3)],
         lambda xs: mock.call((xs[0], xs[1]), axis=2)),
    Call('dropout', (F, 'dropout'),
         {'type': 'Dropout', 'dropout_param': {'dropout_ratio': 0.25}}, [(3, 2)],
         lambda xs: mock.call(xs[0], ratio=0.25)),
    Call('leaky-relu', (F, 'leaky_relu'),
         {'type': 'ReLU', 'relu_param': {'negative_slope': 0.5}}, [(3, 2)],
         lambda xs: mock.call(xs[0], slope=0.5)),
    Call('softmax', (F, 'softmax'), {'type': 'Softmax'}, [(3, 2)],
         lambda xs: mock.call(xs[0])),
    Call('softmax-axis', (F, 'softmax'),
         {'type': 'Softmax', 'softmax_param': {'axis': 2}}, [(3, 2, 4)],
         lambda xs: mock.call(xs[0], axis=2)),
    Call('reshape', (F, 'reshape'),
         {'type': 'Reshape', 'reshape_param': {'shape': {'dim': [3, -1]}}}, [(3, 2, 3)],
         lambda xs: mock.call(xs[0], shape=[3, 6])),
    Call('slice', (F, 'split_axis'), {'type': 'Slice', 'slice_param': {'axis': 0}},
         [(3, 4)], lambda xs: mock.call(xs[0], indices_or_sections=1, axis=0)),
    Call('global-max-pooling', (F, 'max_pooling_2d'),
         {'type': 'Pooling', 'pooling_param': {'pool': 0, 'global_pooling': True}},
         [(2, 3, 3, 4)], lambda xs: mock.call(xs[0], (3, 4), stride=1, pad=0)),
    Call('global-average-pooling', (F, 'average_pooling_2d'),
         {'type': 'Pooling', 'pooling_param': {'pool': 1, 'global_pooling': True}},
         [(2, 3, 3, 4)], lambda xs: mock.call(xs[0], (3, 4), stride=1, pad=0)),
    Call('lrn', (F, 'local_response_normalization'),
         {'type': 'LRN', 'lrn_param': {'local_size': 5, 'alpha': 0.5, 'beta': 0.25, 'k': 2.0}},
         [(2, 6, 3, 3)], lambda xs: mock.call(xs[0], n=5, k=2.0, alpha=0.1, beta=0.25)),
    Call('lrn-even-size', (F, 'local_response_normalization'),
         {'type': 'LRN', 'lrn_param': {'local_size': 4, 'alpha': 0.5, 'beta': 0.25}},
         [(2, 6, 3, 3)], lambda xs: mock.call(xs[0], n=4, k=1.0, alpha=0.125, beta=0.25)),
    # Where Caffe's windows are the pooling function's, its result is returned as it is.
    Call('max-pooling', (F, 'max_pooling_2d'),
         {'type': 'Pooling', 'pooling_param': {'pool': 0, 'kernel_size': 3, 'stride': 2,
                                               'pad': 1}},
         [(2, 3, 7, 7)], lambda xs: mock.call(xs[0], 3, stride=2, pad=1)),
    Call('max-pooling-hw', (F, 'max_pooling_2d'),
         {'type': 'Pooling', 'pooling_param': {'pool': 0, 'kernel_h': 2, 'kernel_w': 3,
                                               'stride_h': 2, 'stride_w': 3}},
         [(2, 3, 4, 6)], lambda xs: mock.call(xs[0], (2, 3), stride=(2, 3), pad=0)),
    Call('average-pooling', (F, 'average_pooling_2d'),
         {'type': 'Pooling', 'pooling_param': {'pool': 1, 'kernel_size': 3, 'pad': 1}},
         [(2, 3, 5, 5)], lambda xs: mock.call(xs[0], 3, stride=1, pad=1)),
    # Caffe refuses a padding as wide as the window: Chainer's call, as it is.
    Call('max-pooling-wide-pad', (F, 'max_pooling_2d'),
         {'type': 'Pooling', 'pooling_param': {'pool': 0, 'kernel_h': 2, 'kernel_w': 3,
                                               'stride_h': 4, 'stride_w': 5, 'pad_h': 6,
                                               'pad_w': 7}},
         [(2, 3, 4, 5)], lambda xs: mock.call(xs[0], (2, 3), stride=(4, 5), pad=(6, 7))),
    Call('average-pooling-wide-pad', (F, 'average_pooling_2d'),
         {'type': 'Pooling', 'pooling_param': {'pool': 1, 'kernel_size': 2, 'stride': 4,
                                               'pad': 2}},
         [(2, 3, 4, 5)], lambda xs: mock.call(xs[0], 2, stride=4, pad=2)),
    Call('inner-product', (L.Linear, 'forward'),
         {'type': 'InnerProduct', 'inner_product_param': {'num_output': 2}}, [(4, 3)],
         lambda xs: mock.call(xs[0]), [np.ones((2, 3), np.float32), np.ones(2, np.float32)]),
    Call('inner-product-axis-2', (L.Linear, 'forward'),
         {'type': 'InnerProduct', 'inner_product_param': {'num_output': 2, 'axis': 2}},
         [(4, 5, 3)], lambda xs: mock.call(xs[0], n_batch_axes=2),
         [np.ones((2, 3), np.float32), np.ones(2, np.float32)]),
    Call('batch-norm', (L.BatchNormalization, 'forward'), {'type': 'BatchNorm'}, [(4, 3)],
         lambda xs: mock.call(xs[0], finetune=False),
         [np.zeros(3, np.float32), np.ones(3, np.float32)]),
    Call('scale-two-bottoms', (L.Scale, 'forward'), {'type': 'Scale'}, [(4, 3), (3,)],
         lambda xs: mock.call(xs[0], xs[1])),
    Call('scale-learned', (L.Scale, 'forward'), {'type': 'Scale'}, [(4, 3)],
         lambda xs: mock.call(xs[0]), [np.ones(3, np.float32)]),
]


def one_layer_net(tmp_path: pathlib.Path, case: Call) -> tuple[pathlib.Path, list[str]]:
    net = schema.NetParameter()
    layer = net.layer.add(name='l1', type=case.layer['type'])
    bottoms = [f'x{i}' for i in range(len(case.shapes))]
    layer.bottom.extend(bottoms)
    layer.top.append('y')
    for array in case.blobs:
        blob = layer.blobs.add()
        blob.shape.dim.extend(array.shape)
        blob.data.extend(array.ravel().tolist())
    for name, values in case.layer.items():
        if name != 'type':
            layer_param = getattr(layer, name)
            for key, value in values.items():
                if key == 'shape':
                    layer_param.shape.dim.extend(value['dim'])
                elif isinstance(value, list):
                    getattr(layer_param, key).extend(value)
                else:
                    setattr(layer_param, key, value)
    path = tmp_path / 'net.caffemodel'
    path.write_bytes(net.SerializeToString())
    return path, bottoms


@pytest.mark.parametrize('case', CALLS, ids=[case.id for case in CALLS])
def test_layer_calls_the_public_api_as_chainer_did(tmp_path: pathlib.Path, case: Call) -> None:
    path, bottoms = one_layer_net(tmp_path, case)
    xs = [catena.Variable(RNG.uniform(-1, 1, shape).astype(np.float32))
          for shape in case.shapes]
    sentinel = catena.Variable(np.zeros((1,), np.float32))
    owner, name = case.target
    with mock.patch.object(owner, name, return_value=sentinel) as patched:
        func = caffe.CaffeFunction(path, strict=True)
        with catena.using_config('train', False):
            y, = func(inputs=dict(zip(bottoms, xs)), outputs=['y'])
    assert y is sentinel
    assert patched.call_args_list == [case.expected(xs)]
