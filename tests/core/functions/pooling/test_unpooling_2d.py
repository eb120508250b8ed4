"""unpooling_2d: forward against direct loops, gradients to second order, outsize errors."""

# ruff: noqa: NPY002

import itertools

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.pooling import unpooling_2d as module
from catena.utils import type_check


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _default_outsize(size, k, s, p, cover_all):
    """The smallest image that pooling maps back to ``size`` windows."""
    return s * (size - 1) + k - 2 * p - (s - 1 if cover_all else 0)


def _reference(x, ksize, stride, pad, outsize):
    """Adds every input pixel to each in-bounds pixel of its window, by loops (float64)."""
    n, c, h, w = x.shape
    (kh, kw), (sy, sx), (ph, pw) = ksize, stride, pad
    y = np.zeros((n, c) + tuple(outsize))
    for i, j in itertools.product(range(h), range(w)):
        for a, b in itertools.product(range(kh), range(kw)):
            r, t = i * sy + a - ph, j * sx + b - pw
            if 0 <= r < outsize[0] and 0 <= t < outsize[1]:
                y[:, :, r, t] += x[:, :, i, j]
    return y


@testing.parameterize(*testing.product_dict(
    [
        {'shape': (2, 3, 2, 3), 'ksize': 2, 'stride': None, 'pad': 0, 'outsize': None,
         'cover_all': True},
        {'shape': (2, 3, 2, 3), 'ksize': 2, 'stride': None, 'pad': 0, 'outsize': None,
         'cover_all': False},
        {'shape': (1, 2, 3, 3), 'ksize': 3, 'stride': 2, 'pad': 1, 'outsize': None,
         'cover_all': True},
        {'shape': (1, 2, 3, 3), 'ksize': 3, 'stride': 2, 'pad': 1, 'outsize': (6, 6),
         'cover_all': False},
        {'shape': (2, 1, 3, 4), 'ksize': (3, 2), 'stride': (2, 1), 'pad': (1, 0),
         'outsize': (5, 5), 'cover_all': True},
        {'shape': (1, 1, 2, 2), 'ksize': 2, 'stride': 3, 'pad': 0, 'outsize': (5, 4),
         'cover_all': True},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestUnpooling2D(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_double_backward_options = {'atol': 5e-3, 'rtol': 5e-3}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.unpooling_2d(x, self.ksize, self.stride, self.pad, self.outsize,
                              self.cover_all),

    def forward_expected(self, inputs):
        x, = inputs
        ksize, pad = _pair(self.ksize), _pair(self.pad)
        stride = ksize if self.stride is None else _pair(self.stride)
        outsize = self.outsize or tuple(
            _default_outsize(*args, self.cover_all)
            for args in zip(x.shape[2:], ksize, stride, pad))
        return _reference(x.astype(np.float64), ksize, stride, pad, outsize).astype(self.dtype),


def test_inverts_non_overlapping_pooling():
    x = np.random.uniform(-1, 1, (2, 3, 4, 6)).astype(np.float32)
    y = F.unpooling_2d(F.average_pooling_2d(x, 2), 2, outsize=(4, 6))
    np.testing.assert_allclose(F.average_pooling_2d(y, 2).array,
                               F.average_pooling_2d(x, 2).array, rtol=1e-6)
    assert F.unpooling_2d(x, 2).shape == (2, 3, 7, 11)  # cover_all: the smallest size
    assert F.unpooling_2d(x, 2, cover_all=False).shape == (2, 3, 8, 12)


def test_graph_nodes_and_double_backprop():
    x = catena.Variable(np.random.uniform(-1, 1, (2, 2, 3, 3)))
    y = F.unpooling_2d(x, 3, 2, 1)
    assert type(y.creator) is module.Unpooling2D
    gy = catena.Variable(np.ones(y.shape))
    gx, = catena.grad([y], [x], grad_outputs=[gy], enable_double_backprop=True)
    assert type(gx.creator) is module.Unpooling2DGrad
    ggx = catena.Variable(x.array.copy())
    ggy, = catena.grad([gx], [gy], grad_outputs=[ggx], enable_double_backprop=True)
    assert type(ggy.creator) is module.Unpooling2D
    np.testing.assert_allclose(ggy.array, y.array)


@pytest.mark.parametrize('outsize, cover_all', [((5, 4), False), ((4, 8), True)])
def test_outsize_inconsistent_with_the_input(outsize, cover_all):
    x = np.zeros((1, 2, 2, 3), np.float32)
    with pytest.raises(type_check.InvalidType,
                       match=r'(?s)the pooled size of outsize = .*x.shape = \(1, 2, 2, 3\)'):
        F.unpooling_2d(x, 2, outsize=outsize, cover_all=cover_all)


def test_invalid_arguments():
    with pytest.raises(type_check.InvalidType, match='x.ndim == 4'):
        F.unpooling_2d(np.zeros((1, 2, 3), np.float32), 2)
    with pytest.raises(ValueError, match='outsize must be an int or a sequence of 2 ints'):
        F.unpooling_2d(np.zeros((1, 1, 2, 2), np.float32), 2, outsize=(4, 4, 4))
    with pytest.raises(type_check.InvalidType, match='a non-negative output size'):
        F.unpooling_2d(np.zeros((1, 1, 1, 1), np.float32), 2, pad=2)


def test_padding_may_crop_the_whole_output():
    x = catena.Variable(np.ones((1, 2, 3, 2), np.float32))
    y = F.unpooling_2d(x, 1, stride=1, pad=1, cover_all=False)
    assert y.shape == (1, 2, 1, 0)
    gx, = catena.grad([y], [x], grad_outputs=[np.ones(y.shape, np.float32)],
                      enable_double_backprop=True)
    np.testing.assert_array_equal(gx.array, np.zeros((1, 2, 3, 2), np.float32))
    y_nd = F.unpooling_nd(x, 1, stride=1, pad=1, cover_all=False)
    assert y_nd.shape == (1, 2, 1, 0)
