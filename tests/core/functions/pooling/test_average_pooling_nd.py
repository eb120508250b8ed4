"""average_pooling_nd / _1d / _3d: forward against direct loops (pad_value 0 and None),
gradients to second order, errors."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.pooling import average_pooling_nd as module
from catena.utils import type_check


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def _reference(x, ksize, stride, pad, pad_value):
    """Window means by loops (float64): over the window size, or over the in-bounds pixels."""
    dims = x.shape[2:]
    outs = tuple((d + 2 * p - k) // s + 1 for d, k, s, p in zip(dims, ksize, stride, pad))
    y = np.zeros(x.shape[:2] + outs)
    for o in np.ndindex(*outs):
        count = 0
        for tap in np.ndindex(*ksize):
            pos = tuple(a * s + b - p for a, b, s, p in zip(o, tap, stride, pad))
            if all(0 <= q < d for q, d in zip(pos, dims)):
                y[(slice(None), slice(None)) + o] += x[(slice(None), slice(None)) + pos]
                count += 1
        y[(slice(None), slice(None)) + o] /= np.prod(ksize) if pad_value == 0 else count
    return y


@testing.parameterize(*testing.product_dict(
    [
        {'shape': (2, 3, 7), 'ksize': 3, 'stride': 2, 'pad': 1, 'wrapper': '1d'},
        {'shape': (2, 3, 6), 'ksize': 2, 'stride': None, 'pad': 0, 'wrapper': '1d'},
        {'shape': (1, 2, 5, 4), 'ksize': (3, 2), 'stride': 2, 'pad': (1, 1), 'wrapper': 'nd'},
        {'shape': (1, 2, 4, 3, 5), 'ksize': 2, 'stride': None, 'pad': 0, 'wrapper': '3d'},
        {'shape': (2, 1, 4, 3, 5), 'ksize': (2, 3, 2), 'stride': (1, 2, 2), 'pad': (1, 1, 0),
         'wrapper': '3d'},
        {'shape': (1, 1, 7, 8), 'ksize': 6, 'stride': 1, 'pad': 2, 'wrapper': 'nd'},
    ],
    [{'pad_value': 0}, {'pad_value': None}],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestAveragePoolingND(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_double_backward_options = {'atol': 5e-3, 'rtol': 5e-3}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        func = {'1d': F.average_pooling_1d, '3d': F.average_pooling_3d,
                'nd': F.average_pooling_nd}[self.wrapper]
        return func(x, self.ksize, self.stride, self.pad, self.pad_value),

    def forward_expected(self, inputs):
        x, = inputs
        n = x.ndim - 2
        stride = self.ksize if self.stride is None else self.stride
        y = _reference(x.astype(np.float64), _tuple(self.ksize, n), _tuple(stride, n),
                       _tuple(self.pad, n), self.pad_value)
        return y.astype(self.dtype),


def test_pad_value_none_excludes_the_padding():
    x = np.ones((1, 1, 3, 3), np.float32)
    np.testing.assert_array_equal(F.average_pooling_nd(x, 2, 1, 1, pad_value=None).array,
                                  np.ones((1, 1, 4, 4)))
    y = F.average_pooling_nd(x, 2, 1, 1).array[0, 0]
    np.testing.assert_array_equal(y[0], [0.25, 0.5, 0.5, 0.25])


def test_graph_nodes_and_double_backprop():
    x = catena.Variable(np.random.uniform(-1, 1, (2, 2, 5, 4, 3)))
    y = F.average_pooling_3d(x, 2, 1, 1, pad_value=None)
    assert type(y.creator) is module.AveragePoolingND
    gy = catena.Variable(np.ones(y.shape))
    gx, = catena.grad([y], [x], grad_outputs=[gy], enable_double_backprop=True)
    assert type(gx.creator) is module.AveragePoolingNDGrad
    ggx = catena.Variable(x.array.copy())
    ggy, = catena.grad([gx], [gy], grad_outputs=[ggx], enable_double_backprop=True)
    assert type(ggy.creator) is module.AveragePoolingND
    np.testing.assert_allclose(ggy.array, y.array)


@pytest.mark.parametrize('pad_value', [1, 0.5, True, 'zero'])
def test_invalid_pad_value(pad_value):
    with pytest.raises(ValueError, match='pad_value must be 0 or None'):
        F.average_pooling_nd(np.zeros((1, 1, 4), np.float32), 2, pad_value=pad_value)


@pytest.mark.parametrize('func, shape', [
    (F.average_pooling_1d, (1, 2, 4, 4)),
    (F.average_pooling_3d, (1, 2, 4, 4)),
    (F.average_pooling_nd, (2,)),
])
def test_wrong_number_of_spatial_axes(func, shape):
    with pytest.raises(ValueError, match=r'x.shape is \(' + ', '.join(map(str, shape))):
        func(np.zeros(shape, np.float32), 2)


def test_kernel_larger_than_the_padded_input():
    x = np.zeros((1, 2, 3), np.float32)
    with pytest.raises(type_check.InvalidType, match=r'x.shape = \(1, 2, 3\), ksize = \(4,\)'):
        F.average_pooling_1d(x, 4)
    assert F.average_pooling_1d(x, 4, pad=1).shape == (1, 2, 1)
