"""Bad constructor arguments of the links raise errors that name the link, the argument,
what was expected and what came."""

import numpy as np
import pytest

import catena.links as L
from catena import initializers

WRONG = np.zeros((7, 7, 7), np.float32)  # an initial array of the wrong shape

CONV = {'in_channels': 3, 'out_channels': 4, 'ksize': 3}
NSTEP = {'n_layers': 1, 'in_size': 3, 'out_size': 4, 'dropout': 0.0}


def _cases():
    """(link, valid keyword arguments, argument, bad value) for every probed argument."""
    table = [
        ('Linear', {'in_size': 3, 'out_size': 4},
         {'in_size': [-2, 'a', 2.5], 'out_size': [-2, 'a'], 'initialW': [WRONG, 'a'],
          'initial_bias': [WRONG, 'a']}),
        ('EmbedID', {'in_size': 5, 'out_size': 3},
         {'in_size': [None, -1], 'out_size': [None, 'a'], 'ignore_label': ['a', 1.5],
          'initialW': [WRONG]}),
        ('Bilinear', {'left_size': 2, 'right_size': 3, 'out_size': 4},
         {'left_size': [None], 'right_size': [None, -1], 'out_size': [None, 2.5]}),
        ('Highway', {'in_out_size': 3},
         {'in_out_size': [-2, 'a', None], 'activate': ['a', 3]}),
        ('Inception', {'in_channels': 3, 'out1': 2, 'proj3': 2, 'out3': 2, 'proj5': 2,
                       'out5': 2, 'proj_pool': 2},
         {'in_channels': [-2, 'a'], 'out1': [0, None], 'proj5': [-1, 2.5]}),
        ('InceptionBN', {'in_channels': 3, 'out1': 2, 'proj3': 2, 'out3': 2, 'proj33': 2,
                         'out33': 2, 'pooltype': 'max', 'proj_pool': 2},
         {'out1': [-2, 'a'], 'proj33': [0, None], 'pooltype': ['min', None], 'stride': [0]}),
        ('Bias', {'axis': 1, 'shape': (3,)}, {'axis': ['a', 1.5], 'shape': ['a', (-1,)]}),
        ('Scale', {'axis': 1, 'W_shape': (3,)}, {'axis': [1.5], 'W_shape': [(-1,), 3.5]}),
        ('Parameter', {'array': np.zeros(3, np.float32)}, {'array': ['a', None]}),
        ('Maxout', {'in_size': 3, 'out_size': 4, 'pool_size': 2},
         {'in_size': [-2, 'a'], 'out_size': [None, 2.5], 'pool_size': [0, None]}),
        ('PReLU', {'shape': (3,)}, {'shape': ['a', (-1,), 2.5]}),
        ('Swish', {'beta_shape': (3,)}, {'beta_shape': ['a', (-1,)]}),
        ('SimplifiedDropconnect', {'in_size': 3, 'out_size': 4},
         {'in_size': [-2], 'out_size': [None], 'ratio': [-0.1, 1.0, 'a', None]}),
        ('BatchNormalization', {'size': 3},
         {'size': [-2, 'a', (-1,)], 'decay': [1.5, None], 'eps': [-1.0, 'a'], 'axis': ['a']}),
        ('BatchRenormalization', {'size': 3},
         {'size': [-2], 'decay': [-0.1], 'rmax': ['a', 0.5], 'dmax': [None, -1.0]}),
        ('DecorrelatedBatchNormalization', {'size': 4, 'groups': 2},
         {'size': [0, None], 'groups': [0, 'a'], 'decay': [2.0], 'eps': [-1.0]}),
        ('GroupNormalization', {'groups': 2, 'size': 4}, {'size': [-2, 'a'], 'eps': [None]}),
        ('LayerNormalization', {'size': 4},
         {'size': [-2, 2.5], 'eps': [-1.0, 'a'], 'initial_gamma': [{}, 'a']}),
        ('LSTM', {'in_size': 3, 'out_size': 4}, {'in_size': ['a'], 'lateral_init': ['a']}),
        ('GRU', {'in_size': 3, 'out_size': 4}, {'out_size': [-2], 'inner_init': ['a']}),
        ('StatefulMGU', {'in_size': 3, 'out_size': 4},
         {'in_size': [None, -2, 'a'], 'out_size': [None, 2.5]}),
        ('StatefulPeepholeLSTM', {'in_size': 3, 'out_size': 4},
         {'in_size': [-2], 'out_size': [None, 'a']}),
        ('StatefulZoneoutLSTM', {'in_size': 3, 'out_size': 4},
         {'out_size': [-2], 'c_ratio': [-0.1, 'a'], 'h_ratio': [1.5, None]}),
        ('ChildSumTreeLSTM', {'in_size': 3, 'out_size': 4}, {'out_size': [None, 2.5]}),
        ('NaryTreeLSTM', {'in_size': 3, 'out_size': 4}, {'in_size': ['a'], 'n_ary': [0]}),
        ('BinaryHierarchicalSoftmax', {'in_size': 3, 'tree': ((0, 1), 2)},
         {'in_size': [None, -2]}),
        ('BlackOut', {'in_size': 3, 'counts': [1, 2, 3], 'sample_size': 2},
         {'in_size': [None], 'counts': ['a', None, [-1, 2], []], 'sample_size': [0, 2.5]}),
        ('NegativeSampling', {'in_size': 3, 'counts': [1, 2, 3], 'sample_size': 2},
         {'in_size': ['a'], 'counts': [[1, np.nan]], 'sample_size': [-2, None],
          'power': ['a', None]}),
        ('CRF1d', {'n_label': 3}, {'n_label': [0, None], 'initial_cost': [WRONG]}),
        ('Classifier', {'predictor': L.Linear(3, 2)},
         {'predictor': ['a', None], 'lossfun': [None, 3], 'accfun': ['a'],
          'label_key': [1.5, None]}),
        ('DepthwiseConvolution2D', {'in_channels': 3, 'channel_multiplier': 2, 'ksize': 3},
         {'in_channels': [-2, 'a'], 'channel_multiplier': [0, None], 'ksize': [0, (1, 2, 3)],
          'pad': [-1]}),
        ('DeformableConvolution2D', CONV, {'in_channels': [2.5], 'ksize': [0], 'stride': [0]}),
        ('LocalConvolution2D', {'in_channels': 3, 'out_channels': 4, 'in_size': 5, 'ksize': 3},
         {'out_channels': [-1, None], 'in_size': [0, 'a'], 'ksize': [None, -1]}),
        ('MLPConvolution2D', {'in_channels': 3, 'out_channels': (4, 5), 'ksize': 3},
         {'out_channels': [(), (0, 2), 'a'], 'ksize': [0], 'activation': ['a']}),
        ('DilatedConvolution2D', CONV, {'dilate': [0, 'a'], 'pad': [1.5]}),
        ('ConvolutionND', dict(CONV, ndim=2), {'ndim': [0, 'a', None], 'ksize': [(1, 2, 3)]}),
        ('DeconvolutionND', dict(CONV, ndim=2), {'ndim': [-1], 'outsize': [(1,), (-1, 2)]}),
        ('Deconvolution2D', CONV, {'outsize': ['a', (0, 3), (1.5, 3)], 'groups': [0]}),
        ('Convolution3D', CONV, {'ksize': [(1, 2)], 'stride': [(1, 1, 0)]}),
    ]
    for name in ('Convolution2D', 'Convolution1D', 'Deconvolution1D'):
        table.append((name, CONV, {
            'in_channels': [-2, 'a', 2.5], 'out_channels': [0, None, 'a'], 'ksize': [0, 1.5],
            'stride': [0, 'a'], 'pad': [-1], 'dilate': [0], 'groups': [0, 'a'],
            'initialW': [WRONG, 'a'], 'initial_bias': [WRONG]}))
    for name in ('NStepLSTM', 'NStepBiGRU', 'NStepRNNTanh', 'NStepBiRNNReLU'):
        table.append((name, NSTEP, {'n_layers': [0, None], 'in_size': [-2, 'a'],
                                    'out_size': [None, 2.5], 'dropout': [1.0, -0.1, 'a'],
                                    'initialW': ['a']}))
    for name, valid, bad in table:
        for argument, values in bad.items():
            for value in values:
                yield pytest.param(name, valid, argument, value,
                                   id=f'{name}-{argument}-{_short(value)}')


def _short(value):
    return f'array{value.shape}' if hasattr(value, 'shape') else repr(value)


def _shown(value):
    """What the message shows of ``value``."""
    if hasattr(value, 'shape'):
        return f'{value.shape}'
    return repr(value)


@pytest.mark.parametrize('name, valid, argument, value', list(_cases()))
def test_a_bad_argument_is_named_with_what_came(name, valid, argument, value):
    with pytest.raises((TypeError, ValueError)) as info:
        getattr(L, name)(**dict(valid, **{argument: value}))
    message = str(info.value)
    assert message.startswith(f'{name}: '), message
    assert argument in message, message
    assert _shown(value) in message, message


@pytest.mark.parametrize('make, error, message', [
    (lambda: L.Convolution2D(3, 4, 0), ValueError,
     'Convolution2D: ksize must be a positive int or a pair of them; got 0'),
    (lambda: L.Convolution3D(3, 4, 3, stride=(1, 1)), ValueError,
     r'Convolution3D: stride must be a positive int or a triple of them; got \(1, 1\)'),
    (lambda: L.Convolution2D(3, 4, 3, pad=1.5), TypeError,
     'Convolution2D: pad must be a non-negative int or a pair of them; got 1.5'),
    (lambda: L.Convolution2D('a', 4, 3), TypeError,
     "Convolution2D: in_channels must be a positive int or None; got 'a'"),
    (lambda: L.Linear(3, 4, initialW=np.zeros((2, 2))), ValueError,
     r'Linear: initialW must be an array of shape \(4, 3\) \(or one that broadcasts to it\); '
     r'got an array of shape \(2, 2\) and dtype float64'),
    (lambda: L.Linear(3, 4, initial_bias='a'), TypeError,
     "Linear: initial_bias must be None, a scalar, an array or an initializer; got 'a'"),
    (lambda: L.BatchNormalization(3, decay=1.5), ValueError,
     r'BatchNormalization: decay must be a real number in \[0, 1\]; got 1.5'),
    (lambda: L.NStepLSTM(1, 3, 4, 1.0), ValueError,
     r'NStepLSTM: dropout must be a real number in \[0, 1\); got 1.0'),
    (lambda: L.EmbedID(3, 2, ignore_label=1.5), TypeError,
     'EmbedID: ignore_label must be an int or None; got 1.5'),
    (lambda: L.BlackOut(3, [0, 0], 2), ValueError,
     'BlackOut: counts must be a non-empty 1-d sequence of non-negative numbers with a '
     r'positive sum; got \[0, 0\]'),
])
def test_exact_messages(make, error, message):
    with pytest.raises(error, match=f'^{message}$'):
        make()


def test_a_lazy_initial_array_is_checked_at_the_first_call():
    link = L.Linear(None, 4, initialW=np.zeros((4, 5), np.float32))
    with pytest.raises(ValueError, match=r'Linear: initialW must be an array of shape \(4, 3\)'):
        link(np.zeros((2, 3), np.float32))
    assert link.W.array is None  # the failed call left the link uninitialized
    assert link(np.zeros((2, 5), np.float32)).shape == (2, 4)


@pytest.mark.parametrize('make', [
    lambda: L.Linear(3, 4, initialW=np.ones((1, 3), np.float32)),  # broadcasts, as in Chainer
    lambda: L.Linear(3, 4, initial_bias=np.float32(2)),
    lambda: L.Convolution2D(3, 4, 3, initialW=initializers.Constant(0.5)),
    lambda: L.Deconvolution2D(3, 4, 3, outsize=(None, 5)),
    lambda: L.BatchNormalization(axis=(0, -1)),
    lambda: L.BatchNormalization(3, decay=1, eps=0),
    lambda: L.GroupNormalization(groups=3.5),  # Chainer reports bad groups at the first call
    lambda: L.InceptionBN(3, 0, 2, 2, 2, 2, 'avg', stride=2),
    lambda: L.Convolution2D(np.int64(3), np.int32(4), (np.int64(3), 3)),
    lambda: L.StatefulZoneoutLSTM(None, 4, c_ratio=0, h_ratio=1),
    lambda: L.Classifier(L.Linear(3, 2), accfun=None),
])
def test_valid_arguments_still_pass(make):
    make()


def test_inceptionbn_pooltype_is_still_a_not_implemented_error():
    with pytest.raises(NotImplementedError, match="InceptionBN: pooltype must be 'max' or"):
        L.InceptionBN(3, 2, 2, 2, 2, 2, 'min', 2)


def test_the_caller_s_initializer_is_untouched_by_a_failed_constructor():
    initial = np.arange(12, dtype=np.float32).reshape(4, 3)
    before = initial.copy()
    with pytest.raises(ValueError):
        L.Linear(3, 4, initialW=initial, initial_bias=np.zeros(5, np.float32))
    np.testing.assert_array_equal(initial, before)
