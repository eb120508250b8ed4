"""The subset of Caffe's ``caffe.proto`` that the importer reads, built in Python.

There is no ``protoc`` at build time, so the descriptors are assembled here
from a table: every message, field number, type and default below follows
the published ``caffe.proto`` of BVLC Caffe (proto2, package ``caffe``).
Only the messages and fields the importer uses are declared, plus each
layer's ``engine`` (which the importer ignores: every engine computes the
same), so that code building caffemodels as for Caffe can set it; protobuf
keeps every other field of a real caffemodel as an unknown field and the
importer never looks at it.

The message classes are module attributes (``NetParameter``,
``LayerParameter``, ``V1LayerParameter``, ``BlobProto``, ``BlobShape`` and
the per-layer parameter messages), so tests and writers can build caffemodels
with them. They live in a private descriptor pool, so they never clash with
another copy of ``caffe.proto`` loaded in the same process.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

PACKAGE = 'caffe'

_F = descriptor_pb2.FieldDescriptorProto
_OPTIONAL = _F.LABEL_OPTIONAL
_REPEATED = _F.LABEL_REPEATED

_SCALAR_TYPES = {
    'bool': _F.TYPE_BOOL,
    'float': _F.TYPE_FLOAT,
    'double': _F.TYPE_DOUBLE,
    'int32': _F.TYPE_INT32,
    'int64': _F.TYPE_INT64,
    'uint32': _F.TYPE_UINT32,
    'uint64': _F.TYPE_UINT64,
    'string': _F.TYPE_STRING,
}

# caffe.proto nests the same Engine enum in every message that has an engine field.
_ENGINE = [('DEFAULT', 0), ('CAFFE', 1), ('CUDNN', 2)]

# Enums nested in a message: {message: {enum: [(value name, number), ...]}}.
_ENUMS: dict[str, dict[str, list[tuple[str, int]]]] = {
    'ConvolutionParameter': {'Engine': _ENGINE},
    'EltwiseParameter': {'EltwiseOp': [('PROD', 0), ('SUM', 1), ('MAX', 2)]},
    # caffe.proto declares Phase at the top level (caffe.Phase); nesting it here
    # keeps its numbers and text names, which is all the wire and text formats see.
    'LayerParameter': {'Phase': [('TRAIN', 0), ('TEST', 1)]},
    'LossParameter': {
        'NormalizationMode': [('FULL', 0), ('VALID', 1), ('BATCH_SIZE', 2), ('NONE', 3)],
    },
    'LRNParameter': {
        'NormRegion': [('ACROSS_CHANNELS', 0), ('WITHIN_CHANNEL', 1)],
        'Engine': _ENGINE,
    },
    'PoolingParameter': {
        'PoolMethod': [('MAX', 0), ('AVE', 1), ('STOCHASTIC', 2)],
        'Engine': _ENGINE,
        'RoundMode': [('CEIL', 0), ('FLOOR', 1)],
    },
    'ReLUParameter': {'Engine': _ENGINE},
    'SigmoidParameter': {'Engine': _ENGINE},
    'SoftmaxParameter': {'Engine': _ENGINE},
    'TanHParameter': {'Engine': _ENGINE},
    'V1LayerParameter': {
        'LayerType': [
            ('NONE', 0), ('ABSVAL', 35), ('ACCURACY', 1), ('ARGMAX', 30), ('BNLL', 2),
            ('CONCAT', 3), ('CONTRASTIVE_LOSS', 37), ('CONVOLUTION', 4), ('DATA', 5),
            ('DECONVOLUTION', 39), ('DROPOUT', 6), ('DUMMY_DATA', 32),
            ('EUCLIDEAN_LOSS', 7), ('ELTWISE', 25), ('EXP', 38), ('FLATTEN', 8),
            ('HDF5_DATA', 9), ('HDF5_OUTPUT', 10), ('HINGE_LOSS', 28), ('IM2COL', 11),
            ('IMAGE_DATA', 12), ('INFOGAIN_LOSS', 13), ('INNER_PRODUCT', 14), ('LRN', 15),
            ('MEMORY_DATA', 29), ('MULTINOMIAL_LOGISTIC_LOSS', 16), ('MVN', 34),
            ('POOLING', 17), ('POWER', 26), ('RELU', 18), ('SIGMOID', 19),
            ('SIGMOID_CROSS_ENTROPY_LOSS', 27), ('SILENCE', 36), ('SOFTMAX', 20),
            ('SOFTMAX_LOSS', 21), ('SPLIT', 22), ('SLICE', 33), ('TANH', 23),
            ('WINDOW_DATA', 24), ('THRESHOLD', 31),
        ],
    },
}

# Field rows: (name, number, label, type, default or None, packed).
# A type that is not a scalar name is a message (or, when it names an enum of
# the same message, an enum).
_Row = tuple[str, int, int, str, Any, bool]


def _opt(name: str, number: int, type_: str, default: Any = None) -> _Row:
    return (name, number, _OPTIONAL, type_, default, False)


def _rep(name: str, number: int, type_: str, packed: bool = False) -> _Row:
    return (name, number, _REPEATED, type_, None, packed)


_PARAM_FIELDS: list[tuple[str, str, int | None, int | None]] = [
    # (field name, message, number in LayerParameter, number in V1LayerParameter)
    ('loss_param', 'LossParameter', 101, 42),
    ('accuracy_param', 'AccuracyParameter', 102, 27),
    ('batch_norm_param', 'BatchNormParameter', 139, None),
    ('concat_param', 'ConcatParameter', 104, 9),
    ('convolution_param', 'ConvolutionParameter', 106, 10),
    ('dropout_param', 'DropoutParameter', 108, 12),
    ('eltwise_param', 'EltwiseParameter', 110, 24),
    ('elu_param', 'ELUParameter', 140, None),
    ('flatten_param', 'FlattenParameter', 135, None),
    ('inner_product_param', 'InnerProductParameter', 117, 17),
    ('input_param', 'InputParameter', 143, None),
    ('lrn_param', 'LRNParameter', 118, 18),
    ('pooling_param', 'PoolingParameter', 121, 19),
    ('power_param', 'PowerParameter', 122, 21),
    ('prelu_param', 'PReLUParameter', 131, None),
    ('relu_param', 'ReLUParameter', 123, 30),
    ('reshape_param', 'ReshapeParameter', 133, None),
    ('scale_param', 'ScaleParameter', 142, None),
    ('sigmoid_param', 'SigmoidParameter', 124, 38),
    ('softmax_param', 'SoftmaxParameter', 125, 39),
    ('slice_param', 'SliceParameter', 126, 31),
    ('tanh_param', 'TanHParameter', 127, 37),
]

_MESSAGES: dict[str, list[_Row]] = {
    'BlobShape': [_rep('dim', 1, 'int64', packed=True)],
    'BlobProto': [
        _opt('shape', 7, 'BlobShape'),
        _rep('data', 5, 'float', packed=True),
        _rep('diff', 6, 'float', packed=True),
        _rep('double_data', 8, 'double', packed=True),
        _rep('double_diff', 9, 'double', packed=True),
        _opt('num', 1, 'int32', 0),
        _opt('channels', 2, 'int32', 0),
        _opt('height', 3, 'int32', 0),
        _opt('width', 4, 'int32', 0),
    ],
    'NetParameter': [
        _opt('name', 1, 'string'),
        _rep('input', 3, 'string'),
        _rep('input_shape', 8, 'BlobShape'),
        _rep('input_dim', 4, 'int32'),
        _rep('layer', 100, 'LayerParameter'),
        _rep('layers', 2, 'V1LayerParameter'),
    ],
    'LayerParameter': [
        _opt('name', 1, 'string'),
        _opt('type', 2, 'string'),
        _rep('bottom', 3, 'string'),
        _rep('top', 4, 'string'),
        _rep('loss_weight', 5, 'float'),
        _rep('blobs', 7, 'BlobProto'),
        _opt('phase', 10, 'Phase'),
    ] + [_opt(name, number, message)
         for name, message, number, _ in _PARAM_FIELDS if number is not None],
    'V1LayerParameter': [
        _rep('bottom', 2, 'string'),
        _rep('top', 3, 'string'),
        _opt('name', 4, 'string'),
        _opt('type', 5, 'LayerType'),
        _rep('blobs', 6, 'BlobProto'),
        _rep('loss_weight', 35, 'float'),
    ] + [_opt(name, number, message)
         for name, message, _, number in _PARAM_FIELDS if number is not None],
    'AccuracyParameter': [
        _opt('top_k', 1, 'uint32', 1),
        _opt('axis', 2, 'int32', 1),
        _opt('ignore_label', 3, 'int32'),
    ],
    'BatchNormParameter': [
        _opt('use_global_stats', 1, 'bool'),
        _opt('moving_average_fraction', 2, 'float', 0.999),
        _opt('eps', 3, 'float', 1e-5),
    ],
    'ConcatParameter': [
        _opt('axis', 2, 'int32', 1),
        _opt('concat_dim', 1, 'uint32', 1),
    ],
    'ConvolutionParameter': [
        _opt('num_output', 1, 'uint32'),
        _opt('bias_term', 2, 'bool', True),
        _rep('pad', 3, 'uint32'),
        _rep('kernel_size', 4, 'uint32'),
        _rep('stride', 6, 'uint32'),
        _rep('dilation', 18, 'uint32'),
        _opt('pad_h', 9, 'uint32', 0),
        _opt('pad_w', 10, 'uint32', 0),
        _opt('kernel_h', 11, 'uint32'),
        _opt('kernel_w', 12, 'uint32'),
        _opt('stride_h', 13, 'uint32'),
        _opt('stride_w', 14, 'uint32'),
        _opt('group', 5, 'uint32', 1),
        _opt('engine', 15, 'Engine', 'DEFAULT'),
        _opt('axis', 16, 'int32', 1),
        _opt('force_nd_im2col', 17, 'bool', False),
    ],
    'DropoutParameter': [_opt('dropout_ratio', 1, 'float', 0.5)],
    'EltwiseParameter': [
        _opt('operation', 1, 'EltwiseOp', 'SUM'),
        _rep('coeff', 2, 'float'),
        _opt('stable_prod_grad', 3, 'bool', True),
    ],
    'ELUParameter': [_opt('alpha', 1, 'float', 1.0)],
    'FlattenParameter': [
        _opt('axis', 1, 'int32', 1),
        _opt('end_axis', 2, 'int32', -1),
    ],
    'InnerProductParameter': [
        _opt('num_output', 1, 'uint32'),
        _opt('bias_term', 2, 'bool', True),
        _opt('axis', 5, 'int32', 1),
        _opt('transpose', 6, 'bool', False),
    ],
    'InputParameter': [_rep('shape', 1, 'BlobShape')],
    'LossParameter': [
        _opt('ignore_label', 1, 'int32'),
        _opt('normalization', 3, 'NormalizationMode', 'VALID'),
        _opt('normalize', 2, 'bool'),
    ],
    'LRNParameter': [
        _opt('local_size', 1, 'uint32', 5),
        _opt('alpha', 2, 'float', 1.0),
        _opt('beta', 3, 'float', 0.75),
        _opt('norm_region', 4, 'NormRegion', 'ACROSS_CHANNELS'),
        _opt('k', 5, 'float', 1.0),
        _opt('engine', 6, 'Engine', 'DEFAULT'),
    ],
    'PoolingParameter': [
        _opt('pool', 1, 'PoolMethod', 'MAX'),
        _opt('pad', 4, 'uint32', 0),
        _opt('pad_h', 9, 'uint32', 0),
        _opt('pad_w', 10, 'uint32', 0),
        _opt('kernel_size', 2, 'uint32'),
        _opt('kernel_h', 5, 'uint32'),
        _opt('kernel_w', 6, 'uint32'),
        _opt('stride', 3, 'uint32', 1),
        _opt('stride_h', 7, 'uint32'),
        _opt('stride_w', 8, 'uint32'),
        _opt('engine', 11, 'Engine', 'DEFAULT'),
        _opt('global_pooling', 12, 'bool', False),
        _opt('round_mode', 13, 'RoundMode', 'CEIL'),
    ],
    'PowerParameter': [
        _opt('power', 1, 'float', 1.0),
        _opt('scale', 2, 'float', 1.0),
        _opt('shift', 3, 'float', 0.0),
    ],
    'PReLUParameter': [_opt('channel_shared', 2, 'bool', False)],
    'ReLUParameter': [
        _opt('negative_slope', 1, 'float', 0.0),
        _opt('engine', 2, 'Engine', 'DEFAULT'),
    ],
    'ReshapeParameter': [
        _opt('shape', 1, 'BlobShape'),
        _opt('axis', 2, 'int32', 0),
        _opt('num_axes', 3, 'int32', -1),
    ],
    'ScaleParameter': [
        _opt('axis', 1, 'int32', 1),
        _opt('num_axes', 2, 'int32', 1),
        _opt('bias_term', 4, 'bool', False),
    ],
    'SigmoidParameter': [_opt('engine', 1, 'Engine', 'DEFAULT')],
    'SoftmaxParameter': [
        _opt('engine', 1, 'Engine', 'DEFAULT'),
        _opt('axis', 2, 'int32', 1),
    ],
    'SliceParameter': [
        _opt('axis', 3, 'int32', 1),
        _rep('slice_point', 2, 'uint32'),
        _opt('slice_dim', 1, 'uint32', 1),
    ],
    'TanHParameter': [_opt('engine', 1, 'Engine', 'DEFAULT')],
}


def _default_text(value: Any) -> str:
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return str(value)


def _add_field(message: descriptor_pb2.DescriptorProto, row: _Row) -> None:
    name, number, label, type_, default, packed = row
    field = message.field.add(name=name, number=number, label=label)
    if type_ in _SCALAR_TYPES:
        field.type = _SCALAR_TYPES[type_]
    elif type_ in _ENUMS.get(message.name, {}):
        field.type = _F.TYPE_ENUM
        field.type_name = f'.{PACKAGE}.{message.name}.{type_}'
    else:
        field.type = _F.TYPE_MESSAGE
        field.type_name = f'.{PACKAGE}.{type_}'
    if default is not None:
        field.default_value = _default_text(default)
    if packed:
        field.options.packed = True


def _file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    proto = descriptor_pb2.FileDescriptorProto(
        name='catena_zoo/caffe/caffe.proto', package=PACKAGE, syntax='proto2')
    for message_name, rows in _MESSAGES.items():
        message = proto.message_type.add(name=message_name)
        for enum_name, values in _ENUMS.get(message_name, {}).items():
            enum = message.enum_type.add(name=enum_name)
            for value_name, number in values:
                enum.value.add(name=value_name, number=number)
        for row in rows:
            _add_field(message, row)
    return proto


POOL = descriptor_pool.DescriptorPool()
POOL.Add(_file_descriptor())


def message_class(name: str) -> Any:
    """Returns the generated message class of ``caffe.<name>``.

    Args:
        name: A message name of this schema, e.g. ``'LayerParameter'``.

    Returns:
        The protobuf message class.
    """
    return message_factory.GetMessageClass(POOL.FindMessageTypeByName(f'{PACKAGE}.{name}'))


BlobShape: Any = message_class('BlobShape')
BlobProto: Any = message_class('BlobProto')
NetParameter: Any = message_class('NetParameter')
LayerParameter: Any = message_class('LayerParameter')
V1LayerParameter: Any = message_class('V1LayerParameter')

#: Names of the layer-specific parameter fields, mapped to their message name.
PARAM_MESSAGES: dict[str, str] = {name: message for name, message, _, _ in _PARAM_FIELDS}
