"""upsampling_2d: forward against direct loops, gradients to second order, round trip with
max_pooling_2d, errors."""

# ruff: noqa: NPY002

import itertools

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.pooling import upsampling_2d as module
from catena.utils import type_check


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _default_outsize(size, k, s, p, cover_all):
    """The smallest image that pooling maps back to ``size`` windows."""
    return s * (size - 1) + k - 2 * p - (s - 1 if cover_all else 0)


def _reference(x, indexes, ksize, stride, pad, outsize):
    """Adds every input pixel to the in-bounds pixel of its window that its index names."""
    n, c, h, w = x.shape
    kw, (sy, sx), (ph, pw) = ksize[1], stride, pad
    y = np.zeros((n, c) + tuple(outsize))
    for m, ch, i, j in itertools.product(range(n), range(c), range(h), range(w)):
        a, b = divmod(int(indexes[m, ch, i, j]), kw)
        r, t = i * sy + a - ph, j * sx + b - pw
        if 0 <= r < outsize[0] and 0 <= t < outsize[1]:
            y[m, ch, r, t] += x[m, ch, i, j]
    return y


@testing.parameterize(*testing.product_dict(
    [
        {'shape': (2, 3, 2, 3), 'ksize': 2, 'stride': None, 'pad': 0, 'outsize': None,
         'cover_all': True},
        {'shape': (2, 3, 2, 3), 'ksize': 2, 'stride': None, 'pad': 0, 'outsize': (4, 6),
         'cover_all': False},
        {'shape': (1, 2, 3, 3), 'ksize': 3, 'stride': 2, 'pad': 1, 'outsize': None,
         'cover_all': True},
        {'shape': (1, 2, 3, 3), 'ksize': 3, 'stride': 2, 'pad': 1, 'outsize': (6, 5),
         'cover_all': False},
        {'shape': (2, 1, 3, 4), 'ksize': (3, 2), 'stride': (2, 1), 'pad': (1, 0),
         'outsize': (5, 5), 'cover_all': True},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestUpsampling2D(testing.FunctionTestCase):

    def before_test(self, test_name):
        kh, kw = _pair(self.ksize)
        self.indexes = np.random.randint(0, kh * kw, self.shape)
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_double_backward_options = {'atol': 5e-3, 'rtol': 5e-3}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.upsampling_2d(x, device.send(self.indexes), self.ksize, self.stride, self.pad,
                               self.outsize, self.cover_all),

    def forward_expected(self, inputs):
        x, = inputs
        ksize, pad = _pair(self.ksize), _pair(self.pad)
        stride = ksize if self.stride is None else _pair(self.stride)
        outsize = self.outsize or tuple(
            _default_outsize(*args, self.cover_all)
            for args in zip(x.shape[2:], ksize, stride, pad))
        y = _reference(x.astype(np.float64), self.indexes, ksize, stride, pad, outsize)
        return y.astype(self.dtype),


def test_puts_the_maxima_back_where_max_pooling_found_them():
    size = 2 * 3 * 6 * 4
    x = (np.random.permutation(size).reshape(2, 3, 6, 4) / size).astype(np.float32)
    y, indexes = F.max_pooling_2d(x, 2, return_indices=True)
    up = F.upsampling_2d(y, indexes, 2, outsize=(6, 4)).array
    is_max = x == np.repeat(np.repeat(y.array, 2, axis=2), 2, axis=3)
    np.testing.assert_array_equal(up, x * is_max)
    assert is_max.sum() == y.size


def test_graph_nodes_and_double_backprop():
    x = catena.Variable(np.random.uniform(-1, 1, (2, 2, 3, 3)))
    indexes = np.random.randint(0, 9, x.shape)
    y = F.upsampling_2d(x, indexes, 3, 2, 1)
    assert type(y.creator) is module.Upsampling2D
    gy = catena.Variable(np.ones(y.shape))
    gx, = catena.grad([y], [x], grad_outputs=[gy], enable_double_backprop=True)
    assert type(gx.creator) is module.Upsampling2DGrad
    ggx = catena.Variable(x.array.copy())
    ggy, = catena.grad([gx], [gy], grad_outputs=[ggx], enable_double_backprop=True)
    assert type(ggy.creator) is module.Upsampling2D
    np.testing.assert_allclose(ggy.array, y.array)


def test_indexes_must_match_the_input():
    x = np.zeros((1, 2, 2, 3), np.float32)
    with pytest.raises(type_check.InvalidType, match=r'x.shape = \(1, 2, 2, 3\), indexes: '
                                                     r'shape \(1, 2, 3, 2\)'):
        F.upsampling_2d(x, np.zeros((1, 2, 3, 2), np.int64), 2)
    with pytest.raises(type_check.InvalidType, match='dtype float32'):
        F.upsampling_2d(x, np.zeros((1, 2, 2, 3), np.float32), 2)


def test_outsize_inconsistent_with_the_input():
    x = np.zeros((1, 2, 2, 3), np.float32)
    with pytest.raises(type_check.InvalidType,
                       match=r'(?s)the pooled size of outsize = \(6, 6\).*x.shape = '
                             r'\(1, 2, 2, 3\)'):
        F.upsampling_2d(x, np.zeros(x.shape, np.int64), 2, outsize=(6, 6))
