"""Converters from Caffe layers to catena links and functions.

A converter takes the :class:`~catena_zoo.caffe.CaffeFunction` being built
and one layer message (``LayerParameter``, or ``V1LayerParameter`` for the
old format: both carry ``name``, ``bottom``, ``top``, ``blobs`` and the
``*_param`` fields used here), and registers the layer's forward step with
``func.add_layer``. A configuration the importer cannot emulate raises
:class:`Unsupported` (or :class:`Skipped`); a layer whose stored weights do not fit its own
parameters raises :class:`BadLayer`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import reduce
from typing import Any

import numpy

from catena import configuration, functions as F, links as L, variable
from catena_zoo.caffe import _functions, _schema

Converter = Callable[[Any, Any], None]

#: Converters of the built-in layer types, keyed by Caffe's type name.
CONVERTERS: dict[str, Converter] = {}

#: V1 ``LayerType`` names mapped to the type names of the current format.
V1_TYPE_NAMES: dict[str, str] = {
    'ABSVAL': 'AbsVal', 'ACCURACY': 'Accuracy', 'ARGMAX': 'ArgMax', 'BNLL': 'BNLL',
    'CONCAT': 'Concat', 'CONTRASTIVE_LOSS': 'ContrastiveLoss', 'CONVOLUTION': 'Convolution',
    'DATA': 'Data', 'DECONVOLUTION': 'Deconvolution', 'DROPOUT': 'Dropout',
    'DUMMY_DATA': 'DummyData', 'EUCLIDEAN_LOSS': 'EuclideanLoss', 'ELTWISE': 'Eltwise',
    'EXP': 'Exp', 'FLATTEN': 'Flatten', 'HDF5_DATA': 'HDF5Data', 'HDF5_OUTPUT': 'HDF5Output',
    'HINGE_LOSS': 'HingeLoss', 'IM2COL': 'Im2col', 'IMAGE_DATA': 'ImageData',
    'INFOGAIN_LOSS': 'InfogainLoss', 'INNER_PRODUCT': 'InnerProduct', 'LRN': 'LRN',
    'MEMORY_DATA': 'MemoryData', 'MULTINOMIAL_LOGISTIC_LOSS': 'MultinomialLogisticLoss',
    'MVN': 'MVN', 'POOLING': 'Pooling', 'POWER': 'Power', 'RELU': 'ReLU',
    'SIGMOID': 'Sigmoid', 'SIGMOID_CROSS_ENTROPY_LOSS': 'SigmoidCrossEntropyLoss',
    'SILENCE': 'Silence', 'SOFTMAX': 'Softmax', 'SOFTMAX_LOSS': 'SoftmaxWithLoss',
    'SPLIT': 'Split', 'SLICE': 'Slice', 'TANH': 'TanH', 'WINDOW_DATA': 'WindowData',
    'THRESHOLD': 'Threshold',
}


class Unsupported(Exception):
    """The layer's configuration cannot be emulated (the import fails, as in Chainer)."""


class Skipped(Unsupported):
    """A configuration that cannot be emulated, of a type Chainer did not import.

    Chainer skipped every layer of such a type with a warning, so the layer
    is skipped like one of an unknown type (an error only with ``strict``).
    """


class BadLayer(Exception):
    """The layer's stored blobs or parameters are inconsistent."""


def _converter(type_name: str) -> Callable[[Converter], Converter]:
    def register(function: Converter) -> Converter:
        CONVERTERS[type_name] = function
        return function
    return register


# --------------------------------------------------------------------------
# Reading parameters and blobs
# --------------------------------------------------------------------------

def param(layer: Any, name: str) -> Any:
    """Returns the layer's ``name`` parameter message (its defaults if the format lacks it).

    Args:
        layer: A ``LayerParameter`` or ``V1LayerParameter``.
        name: A parameter field such as ``'convolution_param'``.

    Returns:
        The parameter message.
    """
    if name in layer.DESCRIPTOR.fields_by_name:
        return getattr(layer, name)
    return _schema.message_class(_schema.PARAM_MESSAGES[name])()


def blob_shape(blob: Any) -> tuple[int, ...]:
    """Returns a blob's shape: its ``shape`` field, else the legacy 4-D dimensions.

    Args:
        blob: A ``BlobProto``.

    Returns:
        The shape.
    """
    if blob.HasField('shape'):
        return tuple(int(d) for d in blob.shape.dim)
    legacy = (blob.num, blob.channels, blob.height, blob.width)
    if any(legacy):
        return tuple(int(d) for d in legacy)
    return (len(blob.data) or len(blob.double_data),)


def blob_array(layer: Any, index: int, what: str) -> numpy.ndarray:
    """Returns blob ``index`` of ``layer`` as a float32 array of its shape.

    Args:
        layer: The layer message.
        index: The blob's index.
        what: What the blob holds, for error messages (``'weights'``).

    Returns:
        The array.

    Raises:
        BadLayer: If the blob is missing or its size does not match its shape.
    """
    if index >= len(layer.blobs):
        raise BadLayer(f'it has {len(layer.blobs)} blob(s) but its {what} should be '
                       f'blobs[{index}] (is this a caffemodel with trained weights?)')
    blob = layer.blobs[index]
    shape = blob_shape(blob)
    if any(d < 0 for d in shape):
        raise BadLayer(f'blobs[{index}] ({what}) has the shape {shape}, with a negative '
                       'dimension')
    values = blob.data if len(blob.data) else blob.double_data
    array = numpy.array(values, dtype=numpy.float32)
    if array.size != math.prod(shape):
        raise BadLayer(f'blobs[{index}] ({what}) holds {array.size} values but its shape '
                       f'{shape} needs {math.prod(shape)}')
    return array.reshape(shape)


def _field_values(message: Any, name: str) -> list[int]:
    value = getattr(message, name)
    if isinstance(value, int):  # an optional field (PoolingParameter)
        return [value] if message.HasField(name) else []
    return [int(v) for v in value]


def _spatial_as_written(message: Any, name: str, default: int | None) -> _functions.Size:
    """Reads a 2-D size as the file gives it.

    ``(h, w)`` from ``<name>_h``/``<name>_w``, else the one value of
    ``<name>`` as an int (two values as a pair), else ``default``.
    """
    if message.HasField(f'{name}_h') or message.HasField(f'{name}_w'):
        return int(getattr(message, f'{name}_h')), int(getattr(message, f'{name}_w'))
    field = 'kernel_size' if name == 'kernel' else name
    values = _field_values(message, field)
    if not values:
        if default is None:
            raise BadLayer(f'it sets no {field} (nor {name}_h and {name}_w)')
        return default
    if len(values) == 1:
        return values[0]
    if len(values) == 2:
        return values[0], values[1]
    raise Unsupported(f'{len(values)}-D {field} (only 2-D is emulated)')


def _spatial(message: Any, name: str, default: int | None) -> tuple[int, int]:
    """Reads a 2-D size from ``<name>_h``/``<name>_w`` or from ``<name>`` (one or two values)."""
    return _functions.pair(_spatial_as_written(message, name, default))


def _dilation(message: Any) -> tuple[int, int]:
    values = _field_values(message, 'dilation')
    if not values:
        return 1, 1
    if len(values) == 1:
        return values[0], values[0]
    if len(values) == 2:
        return values[0], values[1]
    raise Unsupported(f'{len(values)}-D dilation (only 2-D is emulated)')


def _chained(x: Any, steps: list[Callable[[Any], Any]]) -> Any:
    for step in steps:
        x = step(x)
    return x


# --------------------------------------------------------------------------
# Layers with parameters
# --------------------------------------------------------------------------

def _convolution_geometry(p: Any, weights: numpy.ndarray) -> dict[str, Any]:
    if p.axis != 1:
        raise Unsupported(f'convolution along axis {p.axis} (only axis 1 is emulated)')
    if weights.ndim != 4:
        raise Unsupported(f'{weights.ndim - 2}-D convolution (only 2-D is emulated)')
    ksize = _spatial(p, 'kernel', None)
    if ksize != weights.shape[2:]:
        raise BadLayer(f'its kernel {ksize} does not match its weights of shape '
                       f'{weights.shape}')
    return {'ksize': ksize, 'stride': _spatial(p, 'stride', 1),
            'pad': _spatial(p, 'pad', 0), 'dilate': _dilation(p), 'groups': int(p.group)}


def _bias(layer: Any, p: Any, size: int) -> numpy.ndarray | None:
    if not p.bias_term:
        return None
    b = blob_array(layer, 1, 'bias').reshape(-1)
    if b.size != size:
        raise BadLayer(f'its bias has {b.size} values but it has {size} outputs')
    return b


def _call_link(link: Any, *xs: Any) -> Any:
    return link(*xs)


@_converter('Convolution')
def convolution(func: Any, layer: Any) -> None:
    """Convolution -> :class:`catena.links.Convolution2D` (groups and dilation kept)."""
    p = param(layer, 'convolution_param')
    weights = blob_array(layer, 0, 'weights')
    geometry = _convolution_geometry(p, weights)
    out_channels = weights.shape[0]
    bias = _bias(layer, p, out_channels)
    link = L.Convolution2D(weights.shape[1] * geometry['groups'], out_channels,
                           geometry['ksize'], geometry['stride'], geometry['pad'],
                           nobias=bias is None, initialW=weights, initial_bias=bias,
                           dilate=geometry['dilate'], groups=geometry['groups'])
    func.add_layer(layer, _call_link, link)


@_converter('Deconvolution')
def deconvolution(func: Any, layer: Any) -> None:
    """Deconvolution -> :class:`catena.links.Deconvolution2D`."""
    p = param(layer, 'convolution_param')
    weights = blob_array(layer, 0, 'weights')
    geometry = _convolution_geometry(p, weights)
    out_channels = weights.shape[1] * geometry['groups']
    bias = _bias(layer, p, out_channels)
    link = L.Deconvolution2D(weights.shape[0], out_channels, geometry['ksize'],
                             geometry['stride'], geometry['pad'], nobias=bias is None,
                             initialW=weights, initial_bias=bias,
                             dilate=geometry['dilate'], groups=geometry['groups'])
    func.add_layer(layer, _call_link, link)


@_converter('InnerProduct')
def inner_product(func: Any, layer: Any) -> None:
    """InnerProduct -> :class:`catena.links.Linear` (``axis`` and ``transpose`` honoured)."""
    p = param(layer, 'inner_product_param')
    axis = int(p.axis)
    if axis == 0:
        raise Unsupported('InnerProduct with axis 0 (the batch axis must stay)')
    weights = blob_array(layer, 0, 'weights')
    out_size = int(p.num_output)
    if not out_size:
        if weights.ndim < 2 or not weights.shape[-2]:
            raise BadLayer(f'num_output is unset, and its weights blobs[0] of shape '
                           f'{weights.shape} do not give the output size either')
        out_size = weights.shape[-2]
    if weights.size % out_size:
        raise BadLayer(f'its weights of shape {weights.shape} do not fit '
                       f'num_output={out_size}')
    if p.transpose:
        weights = weights.reshape(-1, out_size).T.copy()
    else:
        weights = weights.reshape(out_size, -1)
    bias = _bias(layer, p, out_size)
    link = L.Linear(weights.shape[1], out_size, nobias=bias is None, initialW=weights,
                    initial_bias=bias)
    if axis == 1:
        func.add_layer(layer, _call_link, link)
        return

    def forward(link: Any, x: Any) -> Any:
        return link(x, n_batch_axes=axis if axis >= 0 else axis + x.ndim)

    func.add_layer(layer, forward, link)


@_converter('BatchNorm')
def batch_norm(func: Any, layer: Any) -> None:
    """BatchNorm -> :class:`catena.links.BatchNormalization` without gamma and beta.

    The stored mean and variance are multiplied by Caffe's scale factor
    (``1 / blobs[2]``, or 0 when ``blobs[2]`` is 0, exactly as Caffe does).
    With ``use_global_stats`` the stored statistics are always used;
    otherwise the layer follows ``catena.config.train`` like any
    BatchNormalization link (Caffe: its TRAIN and TEST phases).
    """
    p = param(layer, 'batch_norm_param')
    mean = blob_array(layer, 0, 'mean').reshape(-1)
    var = blob_array(layer, 1, 'variance').reshape(-1)
    if var.size != mean.size:
        raise BadLayer(f'its mean has {mean.size} values but its variance {var.size}')
    factor = 1.0
    if len(layer.blobs) >= 3:
        stored = blob_array(layer, 2, 'scale factor').reshape(-1)
        if stored.size != 1:
            raise BadLayer(f'its scale factor blobs[2] has {stored.size} values; expected 1')
        factor = 0.0 if stored[0] == 0 else 1.0 / float(stored[0])
    link = L.BatchNormalization(mean.size, decay=float(p.moving_average_fraction),
                                eps=float(p.eps), use_gamma=False, use_beta=False)
    link.avg_mean[...] = mean * factor
    link.avg_var[...] = var * factor
    if p.use_global_stats:
        def forward(link: Any, x: Any) -> Any:
            with configuration.using_config('train', False):
                return link(x, finetune=False)
    else:
        def forward(link: Any, x: Any) -> Any:
            return link(x, finetune=False)
    func.add_layer(layer, forward, link)


@_converter('Scale')
def scale(func: Any, layer: Any) -> None:
    """Scale -> :class:`catena.links.Scale` holding ``W`` (one bottom) and the bias.

    With two bottoms the second one is the scale. ``axis`` may be negative
    (the link then only holds the parameters) and ``num_axes`` any value
    (the blob's shape decides the broadcast).
    """
    p = param(layer, 'scale_param')
    axis = int(p.axis)

    def learned_scale(link: Any, x: Any) -> Any:
        bias = link.bias.b if getattr(link, 'bias', None) is not None else None
        return _functions.scale_and_bias(x, link.W, bias, axis)

    def given_scale(link: Any, x: Any, y: Any) -> Any:
        bias = link.bias.b if getattr(link, 'bias', None) is not None else None
        return _functions.scale_and_bias(x, y, bias, axis)

    if len(layer.bottom) == 1:
        weights = blob_array(layer, 0, 'scale')
        link = L.Scale(axis, weights.shape, bool(p.bias_term))
        link.W.array[...] = weights
        if getattr(link, 'bias', None) is not None:
            link.bias.b.array[...] = blob_array(layer, 1, 'bias').reshape(weights.shape)
        func.add_layer(layer, _call_link if axis >= 0 else learned_scale, link)
        return
    bias_values = blob_array(layer, 0, 'bias') if p.bias_term else None
    link = L.Scale(axis, None, bias_values is not None,
                   None if bias_values is None else bias_values.shape)
    if getattr(link, 'bias', None) is not None:
        link.bias.b.array[...] = bias_values
    func.add_layer(layer, _call_link if axis >= 0 else given_scale, link)


@_converter('PReLU')
def prelu(func: Any, layer: Any) -> None:
    """PReLU -> :class:`catena.links.PReLU` (one slope per channel, or one shared)."""
    p = param(layer, 'prelu_param')
    slopes = blob_array(layer, 0, 'slopes')
    if p.channel_shared:
        slopes = slopes.reshape(())
    else:
        slopes = slopes.reshape(-1)
    link = L.PReLU(shape=slopes.shape)
    link.W.array[...] = slopes
    func.add_layer(layer, _call_link, link)


# --------------------------------------------------------------------------
# Layers without parameters
# --------------------------------------------------------------------------

@_converter('Data')
def data(func: Any, layer: Any) -> None:
    """Data: ignored (its blobs come from ``inputs=``)."""


@_converter('Input')
def input_(func: Any, layer: Any) -> None:
    """Input: ignored (its blobs come from ``inputs=``)."""


@_converter('Split')
def split(func: Any, layer: Any) -> None:
    """Split: every top is the bottom (also recorded in ``func.split_map``)."""
    if len(layer.bottom) != 1:
        raise BadLayer(f'it has {len(layer.bottom)} bottoms; expected 1')
    count = len(layer.top)
    for top in layer.top:
        func.split_map[str(top)] = str(layer.bottom[0])

    def forward(x: Any) -> tuple[Any, ...]:
        return (x,) * count

    func.add_layer(layer, forward)


@_converter('Concat')
def concat(func: Any, layer: Any) -> None:
    """Concat -> :func:`catena.functions.concat` (``axis``, or the old ``concat_dim``)."""
    p = param(layer, 'concat_param')
    axis = int(p.axis) if p.HasField('axis') or not p.HasField('concat_dim') else int(
        p.concat_dim)

    def forward(*xs: Any) -> Any:
        return F.concat(xs, axis=axis)

    func.add_layer(layer, forward)


@_converter('Slice')
def slice_(func: Any, layer: Any) -> None:
    """Slice -> :func:`catena.functions.split_axis` at ``slice_point`` (or equal parts)."""
    p = param(layer, 'slice_param')
    axis = 1
    if p.HasField('axis'):
        axis = int(p.axis)
    elif p.HasField('slice_dim'):
        axis = int(p.slice_dim)
    points = [int(v) for v in p.slice_point]
    sections: Any = points if points else len(layer.top)

    def forward(x: Any) -> Any:
        return F.split_axis(x, indices_or_sections=sections, axis=axis)

    func.add_layer(layer, forward)


@_converter('Dropout')
def dropout(func: Any, layer: Any) -> None:
    """Dropout -> :func:`catena.functions.dropout` (identity in test mode)."""
    ratio = float(param(layer, 'dropout_param').dropout_ratio)

    def forward(x: Any) -> Any:
        return F.dropout(x, ratio=ratio)

    func.add_layer(layer, forward)


@_converter('LRN')
def lrn(func: Any, layer: Any) -> None:
    """LRN across channels (:func:`catena.functions.local_response_normalization`) or within one.

    Across channels the call is Chainer's,
    ``F.local_response_normalization(x, n=local_size, k=k, alpha=alpha / local_size,
    beta=beta)``: Caffe's window for its odd sizes. Caffe refuses an even
    ``local_size``; the call then sums ``local_size // 2`` channels on each
    side, as in Chainer. Within a channel (Caffe's WITHIN_CHANNEL, odd sizes
    only) the mean of the squares runs over a spatial window.
    """
    p = param(layer, 'lrn_param')
    size, alpha, beta, k = int(p.local_size), float(p.alpha), float(p.beta), float(p.k)
    if p.norm_region == p.ACROSS_CHANNELS:
        def forward(x: Any) -> Any:
            return F.local_response_normalization(x, n=size, k=k, alpha=alpha / size,
                                                  beta=beta)
    else:
        if size % 2 == 0:
            raise Unsupported(f'WITHIN_CHANNEL LRN with an even local_size ({size})')

        def forward(x: Any) -> Any:
            return _functions.lrn_within_channel(x, size, alpha, beta)
    func.add_layer(layer, forward)


@_converter('Pooling')
def pooling(func: Any, layer: Any) -> None:
    """Pooling, MAX or AVE, with Caffe's rounding of the output size and AVE divisor.

    Calls ``F.max_pooling_2d`` or ``F.average_pooling_2d`` with the sizes as
    the file gives them (an int, or ``(h, w)`` from ``kernel_h``/``kernel_w``
    and the like), as Chainer's importer did, and returns that result as it
    is wherever Caffe computes the same windows. Caffe refuses a padding as
    wide as the window; that call's result is then returned as it is, as in
    Chainer.
    """
    p = param(layer, 'pooling_param')
    if p.pool == p.STOCHASTIC:
        raise Unsupported('STOCHASTIC pooling')
    is_max = p.pool == p.MAX
    if p.global_pooling:
        # One window over the whole unpadded input: catena's pooling is exact.
        def forward(x: Any) -> Any:
            if is_max:
                return F.max_pooling_2d(x, tuple(x.shape[2:]), stride=1, pad=0)
            return F.average_pooling_2d(x, tuple(x.shape[2:]), stride=1, pad=0)
        func.add_layer(layer, forward)
        return
    ksize = _spatial_as_written(p, 'kernel', None)
    stride = _spatial_as_written(p, 'stride', 1)
    pad = _spatial_as_written(p, 'pad', 0)
    window, padding = _functions.pair(ksize), _functions.pair(pad)
    if padding[0] >= window[0] or padding[1] >= window[1]:
        def forward(x: Any) -> Any:
            if is_max:
                return F.max_pooling_2d(x, ksize, stride=stride, pad=pad)
            return F.average_pooling_2d(x, ksize, stride=stride, pad=pad)
    else:
        pool = _functions.max_pooling if is_max else _functions.average_pooling
        ceil = p.round_mode == p.CEIL

        def forward(x: Any) -> Any:
            return pool(x, ksize, stride, pad, ceil)
    func.add_layer(layer, forward)


@_converter('ReLU')
def relu(func: Any, layer: Any) -> None:
    """ReLU, leaky when ``negative_slope`` is not 0."""
    slope = float(param(layer, 'relu_param').negative_slope)
    if slope == 0:
        func.add_layer(layer, F.relu)
        return

    def forward(x: Any) -> Any:
        return F.leaky_relu(x, slope=slope)

    func.add_layer(layer, forward)


@_converter('ELU')
def elu(func: Any, layer: Any) -> None:
    """ELU with Caffe's ``alpha``."""
    alpha = float(param(layer, 'elu_param').alpha)

    def forward(x: Any) -> Any:
        return F.elu(x, alpha)

    func.add_layer(layer, forward)


@_converter('Sigmoid')
def sigmoid(func: Any, layer: Any) -> None:
    """Sigmoid."""
    func.add_layer(layer, F.sigmoid)


@_converter('TanH')
def tanh(func: Any, layer: Any) -> None:
    """TanH."""
    func.add_layer(layer, F.tanh)


@_converter('AbsVal')
def absval(func: Any, layer: Any) -> None:
    """AbsVal."""
    func.add_layer(layer, F.absolute)


@_converter('Power')
def power(func: Any, layer: Any) -> None:
    """Power: ``(shift + scale * x) ** power``."""
    p = param(layer, 'power_param')
    exponent, factor, shift = float(p.power), float(p.scale), float(p.shift)

    def forward(x: Any) -> Any:
        y = variable.as_variable(x) * factor + shift
        return y if exponent == 1.0 else y ** exponent

    func.add_layer(layer, forward)


@_converter('Reshape')
def reshape(func: Any, layer: Any) -> None:
    """Reshape with Caffe's rules (0 copies a dimension, -1 is inferred, ``axis``/``num_axes``)."""
    p = param(layer, 'reshape_param')
    dims = [int(d) for d in p.shape.dim]
    axis, num_axes = int(p.axis), int(p.num_axes)

    def forward(x: Any) -> Any:
        return F.reshape(x, shape=list(_functions.reshape_shape(x.shape, dims, axis,
                                                                num_axes)))

    func.add_layer(layer, forward)


@_converter('Flatten')
def flatten(func: Any, layer: Any) -> None:
    """Flatten axes ``axis`` to ``end_axis`` into one."""
    p = param(layer, 'flatten_param')
    axis, end_axis = int(p.axis), int(p.end_axis)

    def forward(x: Any) -> Any:
        return F.reshape(x, _functions.flatten_shape(x.shape, axis, end_axis))

    func.add_layer(layer, forward)


@_converter('Eltwise')
def eltwise(func: Any, layer: Any) -> None:
    """Eltwise: PROD, SUM (with ``coeff``) or MAX of all bottoms.

    As in Caffe, ``coeff`` needs one value per bottom, PROD takes none, and
    MAX ignores them.
    """
    p = param(layer, 'eltwise_param')
    coeffs = [float(c) for c in p.coeff]
    operation = int(p.operation)
    if coeffs and len(coeffs) != len(layer.bottom):
        raise BadLayer(f'it has {len(coeffs)} coeff values for {len(layer.bottom)} bottoms '
                       '(coeff needs one value per bottom)')
    if coeffs and operation == p.PROD:
        raise BadLayer('it has coeff values for PROD (coeff is for SUM)')

    def forward(*xs: Any) -> Any:
        if operation == p.PROD:
            return reduce(lambda a, b: a * b, xs)
        if operation == p.MAX:
            return reduce(F.maximum, xs)
        terms = [x * c for x, c in zip(xs, coeffs)] if coeffs else list(xs)
        return reduce(lambda a, b: a + b, terms)

    func.add_layer(layer, forward)


@_converter('Softmax')
def softmax(func: Any, layer: Any) -> None:
    """Softmax along ``axis``."""
    axis = int(param(layer, 'softmax_param').axis)
    if axis == 1:
        func.add_layer(layer, F.softmax)
        return

    def forward(x: Any) -> Any:
        return F.softmax(x, axis=axis)

    func.add_layer(layer, forward)


@_converter('SoftmaxWithLoss')
def softmax_with_loss(func: Any, layer: Any) -> None:
    """SoftmaxWithLoss -> :func:`catena.functions.softmax_cross_entropy`.

    Honours ``softmax_param.axis``, ``loss_param.ignore_label`` and Caffe's
    normalization modes (VALID, BATCH_SIZE, FULL, NONE; the old
    ``normalize: false`` means BATCH_SIZE). Labels may be float, as Caffe's are.
    """
    axis = int(param(layer, 'softmax_param').axis)
    p = param(layer, 'loss_param')
    if p.HasField('normalization'):
        mode = int(p.normalization)
    else:
        mode = p.BATCH_SIZE if p.HasField('normalize') and not p.normalize else p.VALID
    ignore_label = int(p.ignore_label) if p.HasField('ignore_label') else -1
    name = str(layer.name)

    def forward(*xs: Any) -> Any:
        if len(xs) != 2:
            raise ValueError(f'SoftmaxWithLoss layer {name!r} takes 2 bottoms (scores and '
                             f'labels); the network gives it {len(xs)}')
        x, t = xs
        labels = t.array if isinstance(t, variable.Variable) else t
        canonical = axis if axis >= 0 else axis + x.ndim
        labels = labels.reshape(x.shape[:canonical] + x.shape[canonical + 1:])
        if labels.dtype.kind == 'f':
            labels = labels.astype(numpy.int32)
        if mode in (p.VALID, p.BATCH_SIZE):
            return F.softmax_cross_entropy(x, labels, normalize=mode == p.VALID,
                                           ignore_label=ignore_label, axis=axis)
        losses = F.softmax_cross_entropy(x, labels, ignore_label=ignore_label, reduce='no',
                                         axis=axis)
        total = F.sum(losses)
        return total if mode == p.NONE else total / max(labels.size, 1)

    func.add_layer(layer, forward)


@_converter('Accuracy')
def accuracy(func: Any, layer: Any) -> None:
    """Accuracy: the fraction of labels among the ``top_k`` scores along ``axis``.

    As in Caffe, a label counts as right when fewer than ``top_k`` classes
    score strictly higher than it, labels equal to ``ignore_label`` are not
    counted, and the result is 0 when every label is ignored. The result
    takes no gradient. Caffe's optional second top (per-class accuracy) is
    not supported.
    """
    p = param(layer, 'accuracy_param')
    if len(layer.top) > 1:
        raise Skipped('Accuracy layers with a per-class second top are not supported')
    top_k = int(p.top_k)
    axis = int(p.axis)
    ignore_label = int(p.ignore_label) if p.HasField('ignore_label') else None

    def forward(x: Any, t: Any) -> Any:
        scores = x.array if isinstance(x, variable.Variable) else x
        labels = t.array if isinstance(t, variable.Variable) else t
        canonical = axis if axis >= 0 else axis + scores.ndim
        scores = numpy.moveaxis(numpy.asarray(scores), canonical, -1)
        scores = scores.reshape(-1, scores.shape[-1])
        labels = numpy.asarray(labels).reshape(-1).astype(numpy.int64)
        if labels.size != scores.shape[0]:
            raise ValueError(f'Accuracy layer {layer.name!r}: {labels.size} labels for '
                             f'{scores.shape[0]} predictions')
        keep = labels != ignore_label if ignore_label is not None else numpy.ones_like(
            labels, dtype=bool)
        scores, labels = scores[keep], labels[keep]
        if labels.size and (labels.min() < 0 or labels.max() >= scores.shape[1]):
            raise ValueError(f'Accuracy layer {layer.name!r}: labels must be in '
                             f'[0, {scores.shape[1]}); got {labels.min()}..{labels.max()}')
        if labels.size == 0:
            return variable.Variable(numpy.zeros((), dtype=x.dtype))
        true_scores = scores[numpy.arange(labels.size), labels][:, None]
        better = (scores > true_scores).sum(axis=1)
        return variable.Variable(numpy.asarray((better < top_k).mean(), dtype=x.dtype))

    func.add_layer(layer, forward)
