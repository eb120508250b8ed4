"""Converters from traced catena function nodes to Caffe layers.

Each converter takes a :class:`Layering` of one traced call and returns the
``LayerParameter`` messages that compute the same thing in Caffe, blobs
included. A node whose configuration Caffe cannot express raises
:class:`Inexpressible` with the reason; the exporter collects those.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from catena import backend
from catena.functions.activation.leaky_relu import LeakyReLU
from catena.functions.activation.relu import ReLU
from catena.functions.activation.sigmoid import Sigmoid
from catena.functions.activation.softmax import Softmax
from catena.functions.array.concat import Concat
from catena.functions.array.reshape import Reshape
from catena.functions.connection.convolution_2d import Convolution2DFunction
from catena.functions.connection.deconvolution_2d import Deconvolution2DFunction
from catena.functions.connection.linear import LinearFunction
from catena.functions.math.basic_math import Add
from catena.functions.normalization.batch_normalization import FixedBatchNormalization
from catena.functions.normalization.local_response_normalization import (
    LocalResponseNormalization,
)
from catena.functions.pooling.average_pooling_2d import AveragePooling2D
from catena.functions.pooling.average_pooling_nd import AveragePoolingND
from catena.functions.pooling.max_pooling_2d import MaxPooling2D
from catena.functions.pooling.max_pooling_nd import MaxPoolingND
from catena_zoo.caffe import _functions as caffe_math, _schema
from catena_zoo.exporters._graph import Call


class Inexpressible(Exception):
    """The node's configuration has no Caffe equivalent (the message says why)."""


class Layering:
    """Helpers to build the layers of one traced call.

    Args:
        call: The traced call.
    """

    def __init__(self, call: Call) -> None:
        self.call = call
        self.node: Any = call.node
        self.name = call.name

    def bottom(self, index: int) -> str:
        """Returns the blob name of input ``index``, which must be computed from the inputs."""
        kind, blob = self.call.sources[index]
        if blob is None:
            raise Inexpressible(f'its input {index} is a constant (a parameter or a fixed '
                                'array), but Caffe takes only computed blobs there')
        return blob

    def constant(self, index: int) -> numpy.ndarray:
        """Returns input ``index`` as a float32 NumPy array; it must be a constant."""
        kind, _ = self.call.sources[index]
        if kind != 'constant':
            raise Inexpressible(f'its input {index} is computed from the model inputs, but '
                                'Caffe stores it as a fixed parameter blob')
        array = self.call.in_data[index]
        host = backend.get_device_from_array(array).to_numpy(array)
        return numpy.ascontiguousarray(host, dtype=numpy.float32)

    def in_shape(self, index: int) -> tuple[int, ...]:
        """Returns the shape of input ``index``."""
        return tuple(self.call.in_data[index].shape)

    @property
    def out_shape(self) -> tuple[int, ...] | None:
        """The shape of the (single) output."""
        return self.call.out_shapes[0] if self.call.out_shapes else None

    def layer(self, type_name: str, bottoms: list[str], name: str | None = None) -> Any:
        """Returns a new layer named ``name`` (default: the call's) with its top of that name."""
        name = self.name if name is None else name
        return _schema.LayerParameter(name=name, type=type_name, bottom=bottoms, top=[name])


def add_blob(layer: Any, array: numpy.ndarray) -> None:
    """Appends ``array`` to the layer's blobs, with its shape and float32 data."""
    blob = layer.blobs.add()
    blob.shape.dim.extend(int(d) for d in array.shape)
    blob.data.extend(numpy.asarray(array, dtype=numpy.float32).ravel().tolist())


Converter = Callable[[Layering], list[Any]]

#: Converters keyed by the exact FunctionNode class.
CONVERTERS: dict[type, Converter] = {}


def _converts(*classes: type) -> Callable[[Converter], Converter]:
    def register(function: Converter) -> Converter:
        for cls in classes:
            CONVERTERS[cls] = function
        return function
    return register


def _check_out_spatial(lay: Layering, expected: tuple[int, ...], how: str) -> None:
    out = lay.out_shape
    if out is not None and tuple(out[2:]) != tuple(expected):
        raise Inexpressible(f'its output is {out[2:]} spatially but Caffe computes {expected} '
                            f'({how})')


# --------------------------------------------------------------------------
# Layers with parameters
# --------------------------------------------------------------------------

@_converts(LinearFunction)
def _linear(lay: Layering) -> list[Any]:
    weights = lay.constant(1)
    layer = lay.layer('InnerProduct', [lay.bottom(0)])
    with_bias = len(lay.call.in_data) == 3
    layer.inner_product_param.num_output = weights.shape[0]
    layer.inner_product_param.bias_term = with_bias
    add_blob(layer, weights)
    if with_bias:
        add_blob(layer, lay.constant(2))
    return [layer]


def _fill_convolution(p: Any, node: Any, weights: numpy.ndarray, num_output: int,
                      with_bias: bool) -> None:
    p.num_output = num_output
    p.bias_term = with_bias
    p.pad_h, p.pad_w = node.ph, node.pw
    p.kernel_h, p.kernel_w = weights.shape[2:]
    p.stride_h, p.stride_w = node.sy, node.sx
    if (node.dy, node.dx) != (1, 1):
        p.dilation.extend([node.dy, node.dx])
    p.group = node.groups


def _dilated(kernel: int, dilation: int) -> int:
    return dilation * (kernel - 1) + 1


@_converts(Convolution2DFunction)
def _convolution(lay: Layering) -> list[Any]:
    node = lay.node
    weights = lay.constant(1)
    h, w = lay.in_shape(0)[2:]
    kh, kw = weights.shape[2:]
    expected = ((h + 2 * node.ph - _dilated(kh, node.dy)) // node.sy + 1,
                (w + 2 * node.pw - _dilated(kw, node.dx)) // node.sx + 1)
    _check_out_spatial(lay, expected, 'it rounds down; cover_all=True has no Caffe equivalent')
    layer = lay.layer('Convolution', [lay.bottom(0)])
    with_bias = len(lay.call.in_data) == 3
    _fill_convolution(layer.convolution_param, node, weights, weights.shape[0], with_bias)
    add_blob(layer, weights)
    if with_bias:
        add_blob(layer, lay.constant(2))
    return [layer]


@_converts(Deconvolution2DFunction)
def _deconvolution(lay: Layering) -> list[Any]:
    node = lay.node
    weights = lay.constant(1)
    h, w = lay.in_shape(0)[2:]
    kh, kw = weights.shape[2:]
    expected = (node.sy * (h - 1) + _dilated(kh, node.dy) - 2 * node.ph,
                node.sx * (w - 1) + _dilated(kw, node.dx) - 2 * node.pw)
    _check_out_spatial(lay, expected, 'Caffe has no outsize argument')
    layer = lay.layer('Deconvolution', [lay.bottom(0)])
    with_bias = len(lay.call.in_data) == 3
    _fill_convolution(layer.convolution_param, node, weights, weights.shape[1] * node.groups,
                      with_bias)
    add_blob(layer, weights)
    if with_bias:
        add_blob(layer, lay.constant(2))
    return [layer]


@_converts(FixedBatchNormalization)
def _batch_normalization(lay: Layering) -> list[Any]:
    """Caffe splits it: BatchNorm ``<name>_bn`` normalizes, Scale ``<name>`` applies gamma/beta."""
    x_shape, gamma_shape = lay.in_shape(0), lay.in_shape(1)
    key_axis = tuple(getattr(lay.node, 'key_axis', ()))
    if len(x_shape) < 2 or key_axis != (1,) or gamma_shape != (x_shape[1],):
        raise Inexpressible(f'it normalizes x {x_shape} per {gamma_shape}, but Caffe '
                            'normalizes per channel (axis 1) only')
    bn_name = f'{lay.name}_bn'
    bn = lay.layer('BatchNorm', [lay.bottom(0)], name=bn_name)
    bn.batch_norm_param.use_global_stats = True
    bn.batch_norm_param.eps = float(lay.node.eps)
    add_blob(bn, lay.constant(3))
    add_blob(bn, lay.constant(4))
    add_blob(bn, numpy.ones((1,), numpy.float32))  # Caffe's scale factor of the statistics
    scale = lay.layer('Scale', [bn_name])
    scale.scale_param.axis = 1
    scale.scale_param.bias_term = True
    add_blob(scale, lay.constant(1))
    add_blob(scale, lay.constant(2))
    return [bn, scale]


# --------------------------------------------------------------------------
# Layers without parameters
# --------------------------------------------------------------------------

def _pooling_mode(lay: Layering, average: bool) -> bool:
    """Returns True when Caffe's CEIL rounding reproduces the node, False for FLOOR.

    Raises:
        Inexpressible: If neither rounding gives the node's output size, or
            (average pooling) if Caffe's divisor differs from the node's.
    """
    node = lay.node
    size = lay.in_shape(0)[2:]
    ksize, stride, pad = tuple(node.ksize), tuple(node.stride), tuple(node.pad)
    out = lay.out_shape
    actual = tuple(out[2:]) if out is not None else None
    pad_value = getattr(node, 'pad_value', 0)
    any_pad = any(p > 0 for p in pad)
    if any(p >= k for p, k in zip(pad, ksize)):
        raise Inexpressible(f'its pad {pad} is not smaller than its window {ksize}, which '
                            'Caffe requires')
    reasons = []
    for ceil in (True, False):
        outs = tuple(caffe_math.pooled_size(n, k, s, p, ceil, any_pad)
                     for n, k, s, p in zip(size, ksize, stride, pad))
        mode = 'CEIL' if ceil else 'FLOOR'
        if actual is not None and outs != actual:
            reasons.append(f'{mode} rounding gives {outs}')
            continue
        if average:
            problem = _average_divisor_problem(size, ksize, stride, pad, outs, pad_value)
            if problem:
                reasons.append(f'{mode} rounding: {problem}')
                continue
        return ceil
    raise Inexpressible(f'it maps {size} to {actual} with window {ksize}, stride {stride}, '
                        f'pad {pad}, but in Caffe ' + '; '.join(reasons))


def _average_divisor_problem(size: tuple[int, ...], ksize: tuple[int, ...],
                             stride: tuple[int, ...], pad: tuple[int, ...],
                             outs: tuple[int, ...], pad_value: Any) -> str | None:
    """Why Caffe's AVE divisor (the window clipped to the padded input) differs, or None."""
    for n, k, s, p, o in zip(size, ksize, stride, pad, outs):
        overhang = (o - 1) * s - p + k - (n + p)
        if pad_value is None and p > 0:
            return 'Caffe counts the padding in the divisor (pad_value=None does not)'
        if pad_value is not None and overhang > 0:
            return ('the last window reaches past the padding and Caffe leaves that part out '
                    'of the divisor')
    return None


@_converts(MaxPooling2D, MaxPoolingND, AveragePooling2D, AveragePoolingND)
def _pooling(lay: Layering) -> list[Any]:
    node = lay.node
    if len(node.ksize) != 2:
        raise Inexpressible(f'it pools {len(node.ksize)} spatial axes; Caffe pools 2')
    average = isinstance(node, (AveragePooling2D, AveragePoolingND))
    ceil = _pooling_mode(lay, average)
    layer = lay.layer('Pooling', [lay.bottom(0)])
    p = layer.pooling_param
    p.pool = p.AVE if average else p.MAX
    p.kernel_h, p.kernel_w = node.ksize
    p.stride_h, p.stride_w = node.stride
    p.pad_h, p.pad_w = node.pad
    if not ceil:
        p.round_mode = p.FLOOR
    return [layer]


@_converts(LocalResponseNormalization)
def _lrn(lay: Layering) -> list[Any]:
    """Caffe's window is ``local_size`` wide (odd) and it divides ``alpha`` by that width."""
    node = lay.node
    if len(lay.in_shape(0)) != 4:
        raise Inexpressible(f'its input has {len(lay.in_shape(0))} axes; Caffe LRN takes 4')
    width = 2 * (node.n // 2) + 1  # catena sums n // 2 channels on each side
    layer = lay.layer('LRN', [lay.bottom(0)])
    p = layer.lrn_param
    p.local_size = width
    p.alpha = float(node.alpha) * width
    p.beta = float(node.beta)
    p.k = float(node.k)
    return [layer]


@_converts(ReLU)
def _relu(lay: Layering) -> list[Any]:
    return [lay.layer('ReLU', [lay.bottom(0)])]


@_converts(LeakyReLU)
def _leaky_relu(lay: Layering) -> list[Any]:
    layer = lay.layer('ReLU', [lay.bottom(0)])
    layer.relu_param.negative_slope = float(lay.node.slope)
    return [layer]


@_converts(Sigmoid)
def _sigmoid(lay: Layering) -> list[Any]:
    return [lay.layer('Sigmoid', [lay.bottom(0)])]


@_converts(Softmax)
def _softmax(lay: Layering) -> list[Any]:
    layer = lay.layer('Softmax', [lay.bottom(0)])
    layer.softmax_param.axis = int(lay.node.axis)
    return [layer]


@_converts(Concat)
def _concat(lay: Layering) -> list[Any]:
    bottoms = [lay.bottom(i) for i in range(len(lay.call.in_data))]
    layer = lay.layer('Concat', bottoms)
    layer.concat_param.axis = int(lay.node.axis)
    return [layer]


@_converts(Reshape)
def _reshape(lay: Layering) -> list[Any]:
    shape = tuple(int(d) for d in lay.node.shape)
    if 0 in shape:
        raise Inexpressible(f'its shape {shape} has a 0, which Caffe reads as "copy the input '
                            'dimension"')
    layer = lay.layer('Reshape', [lay.bottom(0)])
    layer.reshape_param.shape.dim.extend(shape)
    return [layer]


@_converts(Add)
def _add(lay: Layering) -> list[Any]:
    shapes = [lay.in_shape(0), lay.in_shape(1)]
    if shapes[0] != shapes[1]:
        raise Inexpressible(f'it broadcasts {shapes[0]} with {shapes[1]}; Caffe Eltwise adds '
                            'blobs of one shape')
    layer = lay.layer('Eltwise', [lay.bottom(0), lay.bottom(1)])
    layer.eltwise_param.operation = layer.eltwise_param.SUM
    return [layer]


def supported_names() -> list[str]:
    """Returns the class names of the supported function nodes, sorted."""
    return sorted(f"{cls.__name__} ('_ + _')" if cls is Add else cls.__name__
                  for cls in CONVERTERS)
