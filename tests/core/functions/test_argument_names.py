"""A function given something that is not an array names the argument, never fails inside.

``F.reshape(None, ...)`` used to raise ``AttributeError: 'NoneType' object
has no attribute 'shape'``; every case here must raise a TypeError (or an
InvalidType, for inputs that only the node's type check sees) whose message
names the function and the argument and says what came.
"""

import warnings

import numpy as np
import pytest

import catena
import catena.functions as F
from catena.functions import _arguments
from catena.utils import type_check


def _f32(*shape):
    return np.ones(shape, np.float32)


X4 = _f32(2, 3, 4, 4)

# (function, arguments with the slot under test marked BAD, the argument's name, the
# name the message gives the function)
CASES = [
    (F.reshape, ('BAD', (6, 16)), 'x', 'reshape'),
    (F.transpose, ('BAD',), 'x', 'transpose'),
    (F.squeeze, ('BAD',), 'x', 'squeeze'),
    (F.flatten, ('BAD',), 'x', 'flatten'),
    (F.broadcast_to, ('BAD', (2, 3)), 'x', 'broadcast_to'),
    (F.sum_to, ('BAD', (1,)), 'x', 'sum_to'),
    (F.tensordot, ('BAD', _f32(3, 2)), 'a', 'tensordot'),
    (F.tensordot, (_f32(2, 3), 'BAD'), 'b', 'tensordot'),
    (F.batch_matmul, ('BAD', _f32(2, 3, 2)), 'a', 'batch_matmul'),
    (F.det, ('BAD',), 'a', 'det'),
    (F.bias, ('BAD', _f32(3)), 'x', 'bias'),
    (F.bias, (_f32(2, 3), 'BAD'), 'y', 'bias'),
    (F.scale, ('BAD', _f32(3)), 'x', 'scale'),
    (F.scale, (_f32(2, 3), 'BAD'), 'y', 'scale'),
    (F.bilinear, ('BAD', _f32(2, 3), _f32(3, 3, 2)), 'e1', 'bilinear'),
    (F.bilinear, (_f32(2, 3), 'BAD', _f32(3, 3, 2)), 'e2', 'bilinear'),
    (F.black_out, ('BAD', np.zeros(2, np.int32), _f32(5, 3), np.zeros((2, 2), np.int32)),
     'x', 'black_out'),
    (F.gumbel_softmax, ('BAD',), 'log_p', 'gumbel_softmax'),
    (F.ceil, ('BAD',), 'x', 'ceil'),
    (F.average, (_f32(2, 3), 1, 'BAD'), 'weights', 'average'),
    (F.convolution_nd, ('BAD', _f32(2, 3, 1, 1)), 'x', 'convolution_nd'),
    (F.convolution_1d, ('BAD', _f32(2, 3, 1)), 'x', 'convolution_1d'),
    (F.convolution_3d, ('BAD', _f32(2, 3, 1, 1, 1)), 'x', 'convolution_3d'),
    (F.deconvolution_nd, ('BAD', _f32(3, 2, 1, 1)), 'x', 'deconvolution_nd'),
    (F.deconvolution_1d, ('BAD', _f32(3, 2, 1)), 'x', 'deconvolution_1d'),
    (F.deconvolution_3d, ('BAD', _f32(3, 2, 1, 1, 1)), 'x', 'deconvolution_3d'),
    (F.depthwise_convolution_2d, ('BAD', _f32(1, 3, 1, 1)), 'x', 'depthwise_convolution_2d'),
    (F.depthwise_convolution_2d, (X4, 'BAD'), 'W', 'depthwise_convolution_2d'),
    (F.local_convolution_2d, ('BAD', _f32(2, 4, 4, 3, 1, 1)), 'x', 'local_convolution_2d'),
    (F.local_convolution_2d, (X4, 'BAD'), 'W', 'local_convolution_2d'),
    (F.local_convolution_2d, (X4, _f32(2, 4, 4, 3, 1, 1), [1.0]), 'b',
     'local_convolution_2d'),
    (F.deformable_convolution_2d_sampler, ('BAD', _f32(2, 2, 4, 4), _f32(2, 3, 1, 1)), 'x',
     'deformable_convolution_2d_sampler'),
    (F.deformable_convolution_2d_sampler, (X4, 'BAD', _f32(2, 3, 1, 1)), 'offset',
     'deformable_convolution_2d_sampler'),
    (F.max_pooling_nd, ('BAD', 2), 'x', 'max_pooling_nd'),
    (F.max_pooling_1d, ('BAD', 2), 'x', 'max_pooling_1d'),
    (F.max_pooling_3d, ('BAD', 2), 'x', 'max_pooling_3d'),
    (F.average_pooling_nd, ('BAD', 2), 'x', 'average_pooling_nd'),
    (F.average_pooling_1d, ('BAD', 2), 'x', 'average_pooling_1d'),
    (F.average_pooling_3d, ('BAD', 2), 'x', 'average_pooling_3d'),
    (F.unpooling_nd, ('BAD', 2), 'x', 'unpooling_nd'),
    (F.unpooling_1d, ('BAD', 2), 'x', 'unpooling_1d'),
    (F.unpooling_3d, ('BAD', 2), 'x', 'unpooling_3d'),
    (F.softmax_cross_entropy, (_f32(2, 3), np.zeros(2, np.int32), True, True, -1, 'BAD'),
     'class_weight', 'softmax_cross_entropy'),
    (F.connectionist_temporal_classification, (['BAD'], np.zeros((2, 1), np.int32), 0),
     'x[0]', 'connectionist_temporal_classification'),
    (F.transpose_sequence, (['BAD'],), 'xs[0]', 'transpose_sequence'),
    (F.copy, ('BAD', -1), 'x', 'copy'),
    # Inputs that only reach FunctionNode.apply: named by the node's type check.
    (F.relu, ('BAD',), 'x', 'ReLU'),
    (F.sum, ('BAD',), 'x', 'Sum'),
    (F.split_axis, ('BAD', 2, 0), 'x', 'SplitAxis'),
    (F.linear, (_f32(2, 3), _f32(4, 3), 'BAD'), 'b', 'LinearFunction'),
    (F.convolution_2d, (X4, _f32(2, 3, 1, 1), 'BAD'), 'b', 'Convolution2DFunction'),
    (F.concat, ([_f32(2), 'BAD'],), 'xs[1]', 'Concat'),
]

BAD_VALUES = {'None': None, 'str': 'a', 'list': [1.0, 2.0], 'int': 3}


def _case_id(case):
    function, args, name, _ = case
    return f'{function.__name__}-{name}'


def _call(function, args, bad):
    def put(arg):
        if isinstance(arg, str) and arg == 'BAD':
            return bad
        if isinstance(arg, list) and arg and isinstance(arg[0], str) and arg[0] == 'BAD':
            return [bad]
        return arg

    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        return function(*[put(a) for a in args])


@pytest.mark.parametrize('case', CASES, ids=_case_id)
@pytest.mark.parametrize('bad', list(BAD_VALUES.values()), ids=list(BAD_VALUES))
def test_a_non_array_argument_is_named(case, bad):
    function, args, name, who = case
    if bad is None and name in ('b', 'class_weight', 'weights'):
        pytest.skip('None is the default of an optional argument')
    with pytest.raises((TypeError, type_check.InvalidType)) as info:
        _call(function, args, bad)
    message = str(info.value)
    assert who.lower() in message.lower(), message
    assert name in message, message
    if isinstance(info.value, TypeError):
        assert 'must be a Variable or an array' in message, message


@pytest.mark.parametrize('call, message', [
    (lambda: F.dropout(X4, mask='a'), "dropout: mask must be a Variable or an array; got 'a'"),
    (lambda: F.gaussian(X4, X4, eps=[1.0]),
     r'gaussian: eps must be a Variable or an array; got \[1\.0\]'),
    (lambda: F.reshape(X4, None), 'reshape: shape must be an int or a sequence of ints; got None'),
    (lambda: F.broadcast_to(X4, 3), 'broadcast_to: shape must be a sequence of ints; got 3'),
    (lambda: F.sum_to(X4, None), 'sum_to: shape must be a sequence of ints; got None'),
    (lambda: F.transpose(X4, 1), 'transpose: axes must be None or a sequence of ints; got 1'),
    (lambda: F.resize_images(X4, None), 'resize_images: output_shape must be a pair'),
    (lambda: F.spatial_transformer_grid(_f32(2, 2, 3), 4),
     'spatial_transformer_grid: output_shape must be a pair'),
    (lambda: F.zeta(None, X4), 'zeta: x must be an array or a real number; got None'),
], ids=['dropout-mask', 'gaussian-eps', 'reshape-shape', 'broadcast_to-shape', 'sum_to-shape',
        'transpose-axes', 'resize_images-output_shape', 'spatial_transformer_grid-output_shape',
        'zeta-x'])
def test_other_arguments_of_the_wrong_kind_are_named(call, message):
    with pytest.raises(TypeError, match='^' + message):
        call()


def test_the_message_says_what_came():
    with pytest.raises(TypeError, match=r"^reshape: x must be a Variable or an array; got None$"):
        F.reshape(None, (2, 3))
    with pytest.raises(TypeError, match=r"^ReLU: x must be a Variable or an array; got 'a'$"):
        F.relu('a')
    with pytest.raises(TypeError, match=r'^local_convolution_2d: b must be a Variable or an '
                                        r'array or None; got \[1\.0\]$'):
        F.local_convolution_2d(X4, _f32(2, 4, 4, 3, 1, 1), [1.0])


def test_a_numpy_scalar_input_of_a_node_is_named():
    with pytest.raises(TypeError, match='^ReLU: x must be a Variable or an array; got 1.5$'):
        F.relu(np.float32(1.5))


def test_a_non_sequence_of_inputs_is_named():
    with pytest.raises(TypeError, match='Concat: the inputs must be a sequence of Variables '
                                        'or arrays; got None'):
        F.concat(None)
    with pytest.raises(TypeError, match='Stack: the inputs must be a sequence'):
        F.stack(3)


def test_arrays_and_variables_still_pass():
    v = catena.Variable(X4)
    assert F.reshape(v, (6, 16)).shape == (6, 16)
    assert F.transpose(X4).shape == (4, 4, 3, 2)
    assert F.max_pooling_nd(v, 2).shape == (2, 3, 2, 2)
    assert F.convolution_nd(X4, _f32(2, 3, 1, 1)).shape == (2, 2, 4, 4)
    assert F.local_convolution_2d(X4, _f32(2, 4, 4, 3, 1, 1), None).shape == (2, 2, 4, 4)


def test_blame_returns_when_every_argument_is_an_array():
    _arguments.blame('f', x=X4, y=catena.Variable(X4), b=None, optional=('b',))
    with pytest.raises(TypeError, match="^f: y must be a Variable or an array; got 'a'$"):
        _arguments.blame('f', x=X4, y='a')


def test_an_attribute_error_of_an_array_input_is_not_relabelled():
    class Broken(catena.FunctionNode):
        def forward(self, inputs):
            return inputs[0].no_such_attribute,

    with pytest.raises(AttributeError, match='no_such_attribute'):
        try:
            Broken().apply((X4,))
        except AttributeError:
            _arguments.blame('broken', x=X4)
            raise


def test_array_check_returns_its_argument():
    v = catena.Variable(X4)
    assert _arguments.array('f', 'x', v) is v
    assert _arguments.array('f', 'x', X4) is X4
    assert _arguments.array('f', 'b', None, optional=True) is None
    with pytest.raises(TypeError, match='^f: x must be a Variable or an array; got None$'):
        _arguments.array('f', 'x', None)
