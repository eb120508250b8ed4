"""unpooling_nd / _1d / _3d: forward against direct loops, gradients to second order, errors."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.pooling import unpooling_nd as module
from catena.utils import type_check


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def _default_outsize(size, k, s, p, cover_all):
    """The smallest image that pooling maps back to ``size`` windows."""
    return s * (size - 1) + k - 2 * p - (s - 1 if cover_all else 0)


def _reference(x, ksize, stride, pad, outsize):
    """Adds every input pixel to each in-bounds pixel of its window, by loops (float64)."""
    y = np.zeros(x.shape[:2] + tuple(outsize))
    for o in np.ndindex(*x.shape[2:]):
        for tap in np.ndindex(*ksize):
            pos = tuple(a * s + b - p for a, b, s, p in zip(o, tap, stride, pad))
            if all(0 <= q < d for q, d in zip(pos, outsize)):
                y[(slice(None), slice(None)) + pos] += x[(slice(None), slice(None)) + o]
    return y


@testing.parameterize(*testing.product_dict(
    [
        {'shape': (2, 3, 3), 'ksize': 2, 'stride': None, 'pad': 0, 'outsize': None,
         'cover_all': True, 'wrapper': '1d'},
        {'shape': (2, 3, 4), 'ksize': 3, 'stride': 2, 'pad': 1, 'outsize': (8,),
         'cover_all': False, 'wrapper': '1d'},
        {'shape': (1, 2, 3, 2), 'ksize': (3, 2), 'stride': 2, 'pad': (1, 0), 'outsize': None,
         'cover_all': False, 'wrapper': 'nd'},
        {'shape': (1, 2, 2, 3, 2), 'ksize': 2, 'stride': None, 'pad': 0, 'outsize': None,
         'cover_all': True, 'wrapper': '3d'},
        {'shape': (2, 1, 3, 2, 2), 'ksize': (2, 3, 2), 'stride': (1, 2, 2), 'pad': (1, 1, 0),
         'outsize': (2, 3, 4), 'cover_all': True, 'wrapper': '3d'},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestUnpoolingND(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_double_backward_options = {'atol': 5e-3, 'rtol': 5e-3}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        func = {'1d': F.unpooling_1d, '3d': F.unpooling_3d, 'nd': F.unpooling_nd}[self.wrapper]
        return func(x, self.ksize, self.stride, self.pad, self.outsize, self.cover_all),

    def forward_expected(self, inputs):
        x, = inputs
        n = x.ndim - 2
        ksize, pad = _tuple(self.ksize, n), _tuple(self.pad, n)
        stride = ksize if self.stride is None else _tuple(self.stride, n)
        outsize = self.outsize or tuple(
            _default_outsize(*args, self.cover_all)
            for args in zip(x.shape[2:], ksize, stride, pad))
        return _reference(x.astype(np.float64), ksize, stride, pad, outsize).astype(self.dtype),


def test_graph_nodes_and_double_backprop():
    x = catena.Variable(np.random.uniform(-1, 1, (2, 2, 3, 2, 2)))
    y = F.unpooling_3d(x, 2, 1)
    assert y.shape == (2, 2, 4, 3, 3)
    assert type(y.creator) is module.UnpoolingND
    gy = catena.Variable(np.ones(y.shape))
    gx, = catena.grad([y], [x], grad_outputs=[gy], enable_double_backprop=True)
    assert type(gx.creator) is module.UnpoolingNDGrad
    ggx = catena.Variable(x.array.copy())
    ggy, = catena.grad([gx], [gy], grad_outputs=[ggx], enable_double_backprop=True)
    assert type(ggy.creator) is module.UnpoolingND
    np.testing.assert_allclose(ggy.array, y.array)


def test_outsize_inconsistent_with_the_input():
    x = np.zeros((1, 2, 3), np.float32)
    with pytest.raises(type_check.InvalidType,
                       match=r'(?s)x.shape\[2:\] == \(4,\) \(the pooled size of outsize = '
                             r'\(7,\)\).*x.shape = \(1, 2, 3\)'):
        F.unpooling_1d(x, 2, outsize=7)
    assert F.unpooling_1d(x, 2, outsize=6, cover_all=False).shape == (1, 2, 6)


@pytest.mark.parametrize('func, shape', [
    (F.unpooling_1d, (1, 2, 4, 4)),
    (F.unpooling_3d, (1, 2, 4, 4)),
    (F.unpooling_nd, (2, 3)),
])
def test_wrong_number_of_spatial_axes(func, shape):
    with pytest.raises(ValueError, match=r'x.shape is \(' + ', '.join(map(str, shape))):
        func(np.zeros(shape, np.float32), 2)


def test_invalid_outsize():
    with pytest.raises(ValueError, match='outsize must be an int or a sequence of 3 ints'):
        F.unpooling_3d(np.zeros((1, 1, 2, 2, 2), np.float32), 2, outsize=(4, 4))
