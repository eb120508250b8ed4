"""Caffemodels built in the tests, laid out as the published VGG, ResNet and GoogLeNet files.

Each builder takes a zoo model (only its shapes are read), draws known
weights, and returns the serialized NetParameter with those weights keyed by
Caffe layer name, so a test can check a conversion against values it chose.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from catena_zoo.caffe import _schema

Blobs = dict[str, list[np.ndarray]]


def _add(net: Any, type_: str, name: str, bottom: list[str], top: list[str],
         blobs: list[np.ndarray] | tuple[()] = (), v1: bool = False,
         **params: dict[str, Any]) -> None:
    if v1:
        layer = net.layers.add(name=name)
        layer.type = _schema.V1LayerParameter.LayerType.Value(type_)
    else:
        layer = net.layer.add(name=name, type=type_)
    layer.bottom.extend(bottom)
    layer.top.extend(top)
    for array in blobs:
        blob = layer.blobs.add()
        if v1:  # the V1 files store 4-d legacy dimensions
            legacy = (1,) * (4 - array.ndim) + array.shape
            blob.num, blob.channels, blob.height, blob.width = legacy
        else:
            blob.shape.dim.extend(array.shape)
        blob.data.extend(array.astype(np.float32).ravel().tolist())
    for field, values in params.items():
        message = getattr(layer, field)
        for key, value in values.items():
            if isinstance(value, list):
                getattr(message, key).extend(value)
            else:
                setattr(message, key, value)


def vgg(model: Any, rng: np.random.RandomState) -> tuple[bytes, Blobs]:
    """The VGG team's V1-format layout: CONVOLUTION/RELU/POOLING, then fc6..fc8 and prob."""
    net = _schema.NetParameter(name='VGG_ILSVRC_layers')
    net.input.append('data')
    net.input_dim.extend([1, 3, 224, 224])
    blobs: Blobs = {}
    bottom = 'data'
    for block, names in enumerate(model._conv_names, 1):
        for name in names:
            conv = getattr(model, name)
            blobs[name] = [rng.normal(0, 0.3, conv.W.shape), rng.normal(0, 0.1, conv.b.shape)]
            _add(net, 'CONVOLUTION', name, [bottom], [name], blobs[name], v1=True,
                 convolution_param={'num_output': conv.W.shape[0], 'kernel_size': [3],
                                    'pad': [1]})
            _add(net, 'RELU', f'relu{name[4:]}', [name], [name], v1=True)
            bottom = name
        _add(net, 'POOLING', f'pool{block}', [bottom], [f'pool{block}'], v1=True,
             pooling_param={'pool': 0, 'kernel_size': 2, 'stride': 2})
        bottom = f'pool{block}'
    for name in ('fc6', 'fc7', 'fc8'):
        fc = getattr(model, name)
        blobs[name] = [rng.normal(0, 0.3, fc.W.shape), rng.normal(0, 0.1, fc.b.shape)]
        _add(net, 'INNER_PRODUCT', name, [bottom], [name], blobs[name], v1=True,
             inner_product_param={'num_output': fc.W.shape[0]})
        if name != 'fc8':
            _add(net, 'RELU', f'relu{name[2:]}', [name], [name], v1=True)
            _add(net, 'DROPOUT', f'drop{name[2:]}', [name], [name], v1=True)
        bottom = name
    _add(net, 'SOFTMAX', 'prob', ['fc8'], ['prob'], v1=True)
    return net.SerializeToString(), blobs


def _conv_bn_scale(net: Any, blobs: Blobs, rng: np.random.RandomState, conv: Any,
                   conv_name: str, suffix: str, bottom: str, stride: int, pad: int,
                   relu: bool) -> str:
    out_channels = conv.W.shape[0]
    bias = conv.b is not None
    blobs[conv_name] = [rng.normal(0, 0.3, conv.W.shape)]
    if bias:
        blobs[conv_name].append(rng.normal(0, 0.1, conv.b.shape))
    _add(net, 'Convolution', conv_name, [bottom], [conv_name], blobs[conv_name],
         convolution_param={'num_output': out_channels, 'kernel_size': [conv.W.shape[2]],
                            'stride': [stride], 'pad': [pad], 'bias_term': bias})
    # Caffe stores the running sums and their scale factor; the statistics are sum / factor.
    factor = np.array([rng.uniform(0.5, 2.0)])
    mean = rng.normal(0, 0.2, out_channels)
    var = rng.uniform(0.5, 1.5, out_channels)
    bn_name = 'bn_conv1' if suffix == 'conv1' else f'bn{suffix}'
    scale_name = 'scale_conv1' if suffix == 'conv1' else f'scale{suffix}'
    blobs[bn_name] = [mean * factor, var * factor, factor]
    _add(net, 'BatchNorm', bn_name, [conv_name], [conv_name], blobs[bn_name],
         batch_norm_param={'use_global_stats': True})
    blobs[scale_name] = [rng.uniform(0.5, 1.5, out_channels), rng.normal(0, 0.1, out_channels)]
    _add(net, 'Scale', scale_name, [conv_name], [conv_name], blobs[scale_name],
         scale_param={'bias_term': True})
    if relu:
        _add(net, 'ReLU', f'{conv_name}_relu', [conv_name], [conv_name])
    return conv_name


def resnet(model: Any, rng: np.random.RandomState, names: Any) -> tuple[bytes, Blobs]:
    """MSRA's layout: conv1/bn_conv1/scale_conv1, res<s><b>_branch{1,2a,2b,2c}, fc1000.

    Args:
        names: ``names(stage, n_blocks, n_layers)`` giving MSRA's block names.
    """
    net = _schema.NetParameter(name=f'ResNet-{model.n_layers}')
    _add(net, 'Input', 'input', [], ['data'])
    blobs: Blobs = {}
    bottom = _conv_bn_scale(net, blobs, rng, model.conv1, 'conv1', 'conv1', 'data', 2, 3, True)
    _add(net, 'Pooling', 'pool1', [bottom], ['pool1'],
         pooling_param={'pool': 0, 'kernel_size': 3, 'stride': 2})
    bottom = 'pool1'
    for stage in (2, 3, 4, 5):
        block = getattr(model, f'res{stage}')
        for child, caffe_name in zip(block._forward, names(stage, len(block._forward),
                                                           model.n_layers)):
            bottleneck = getattr(block, child)
            stride = (1 if stage == 2 else 2) if child == 'a' else 1
            h = _conv_bn_scale(net, blobs, rng, bottleneck.conv1, f'res{caffe_name}_branch2a',
                               f'{caffe_name}_branch2a', bottom, stride, 0, True)
            h = _conv_bn_scale(net, blobs, rng, bottleneck.conv2, f'res{caffe_name}_branch2b',
                               f'{caffe_name}_branch2b', h, 1, 1, True)
            h = _conv_bn_scale(net, blobs, rng, bottleneck.conv3, f'res{caffe_name}_branch2c',
                               f'{caffe_name}_branch2c', h, 1, 0, False)
            shortcut = bottom
            if child == 'a':
                shortcut = _conv_bn_scale(net, blobs, rng, bottleneck.conv4,
                                          f'res{caffe_name}_branch1', f'{caffe_name}_branch1',
                                          bottom, stride, 0, False)
            _add(net, 'Eltwise', f'res{caffe_name}', [shortcut, h], [f'res{caffe_name}'])
            _add(net, 'ReLU', f'res{caffe_name}_relu', [f'res{caffe_name}'],
                 [f'res{caffe_name}'])
            bottom = f'res{caffe_name}'
    _add(net, 'Pooling', 'pool5', [bottom], ['pool5'],
         pooling_param={'pool': 1, 'kernel_size': 7, 'stride': 1})
    blobs['fc1000'] = [rng.normal(0, 0.3, model.fc6.W.shape),
                       rng.normal(0, 0.1, model.fc6.b.shape)]
    _add(net, 'InnerProduct', 'fc1000', ['pool5'], ['fc1000'], blobs['fc1000'],
         inner_product_param={'num_output': model.fc6.W.shape[0]})
    _add(net, 'Softmax', 'prob', ['fc1000'], ['prob'])
    return net.SerializeToString(), blobs


def googlenet_parameters(net: Any, blobs: Blobs, mapping: dict[str, str], model: Any,
                         rng: np.random.RandomState) -> None:
    """Adds one Convolution or InnerProduct layer per BVLC name, with the model's shapes."""
    for name, link in model.namedlinks(skipself=True):
        name = name.lstrip('/')
        if name not in mapping:
            continue
        caffe_name = mapping[name]
        blobs[caffe_name] = [rng.normal(0, 0.1, link.W.shape), rng.normal(0, 0.1, link.b.shape)]
        if link.W.ndim == 4:
            _add(net, 'Convolution', caffe_name, ['data'], [caffe_name], blobs[caffe_name],
                 convolution_param={'num_output': link.W.shape[0],
                                    'kernel_size': [link.W.shape[2]]})
        else:
            _add(net, 'InnerProduct', caffe_name, ['data'], [caffe_name], blobs[caffe_name],
                 inner_product_param={'num_output': link.W.shape[0]})


def googlenet(model: Any, rng: np.random.RandomState,
              mapping: dict[str, str]) -> tuple[bytes, Blobs]:
    """BVLC's train_val layout as far as conversion cares: Data layers, every
    parameter layer under its BVLC name, and the loss and accuracy heads."""
    net = _schema.NetParameter(name='GoogleNet')
    _add(net, 'Data', 'data', [], ['data', 'label'])
    blobs: Blobs = {}
    googlenet_parameters(net, blobs, mapping, model, rng)
    for head in ('loss1', 'loss2', 'loss3'):
        _add(net, 'SoftmaxWithLoss', f'{head}/loss', [f'{head}/classifier', 'label'],
             [f'{head}/loss'])
        _add(net, 'Accuracy', f'{head}/top-1', [f'{head}/classifier', 'label'],
             [f'{head}/top-1'])
        _add(net, 'Accuracy', f'{head}/top-5', [f'{head}/classifier', 'label'],
             [f'{head}/top-5'], accuracy_param={'top_k': 5})
    return net.SerializeToString(), blobs
