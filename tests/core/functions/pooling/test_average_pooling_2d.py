"""average_pooling_2d: forward against direct loops, gradients to second order, errors."""

# ruff: noqa: NPY002

import itertools

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.pooling import average_pooling_2d as module
from catena.utils import type_check


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _reference(x, ksize, stride, pad):
    """The sum of the in-bounds pixels of each window over kh * kw, by loops (float64)."""
    n, c, h, w = x.shape
    (kh, kw), (sy, sx), (ph, pw) = ksize, stride, pad
    oh = (h + 2 * ph - kh) // sy + 1
    ow = (w + 2 * pw - kw) // sx + 1
    y = np.zeros((n, c, oh, ow))
    for i, j in itertools.product(range(oh), range(ow)):
        for a, b in itertools.product(range(kh), range(kw)):
            r, t = i * sy + a - ph, j * sx + b - pw
            if 0 <= r < h and 0 <= t < w:
                y[:, :, i, j] += x[:, :, r, t]
    return y / (kh * kw)


@testing.parameterize(*testing.product_dict(
    [
        {'shape': (2, 3, 6, 4), 'ksize': 2, 'stride': None, 'pad': 0},
        {'shape': (2, 2, 7, 6), 'ksize': 3, 'stride': 2, 'pad': 1},
        {'shape': (1, 2, 7, 5), 'ksize': (3, 2), 'stride': (2, 1), 'pad': (1, 0)},
        {'shape': (1, 3, 5, 5), 'ksize': 5, 'stride': 1, 'pad': 0},
        {'shape': (2, 2, 5, 5), 'ksize': 2, 'stride': 3, 'pad': 1},
        {'shape': (1, 1, 9, 8), 'ksize': 7, 'stride': 1, 'pad': 1},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestAveragePooling2D(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_double_backward_options = {'atol': 5e-3, 'rtol': 5e-3}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.average_pooling_2d(x, self.ksize, self.stride, self.pad),

    def forward_expected(self, inputs):
        x, = inputs
        stride = self.ksize if self.stride is None else self.stride
        y = _reference(x.astype(np.float64), _pair(self.ksize), _pair(stride), _pair(self.pad))
        return y.astype(self.dtype),


def test_graph_nodes_and_double_backprop():
    x = catena.Variable(np.random.uniform(-1, 1, (2, 2, 5, 5)))
    y = F.average_pooling_2d(x, 3, 2, 1)
    assert type(y.creator) is module.AveragePooling2D
    gy = catena.Variable(np.ones(y.shape))
    gx, = catena.grad([y], [x], grad_outputs=[gy], enable_double_backprop=True)
    assert type(gx.creator) is module.AveragePooling2DGrad
    ggx = catena.Variable(x.array.copy())
    ggy, = catena.grad([gx], [gy], grad_outputs=[ggx], enable_double_backprop=True)
    assert type(ggy.creator) is module.AveragePooling2D
    np.testing.assert_allclose(ggy.array, y.array)


def test_the_padding_counts_as_zeros():
    x = np.ones((1, 1, 2, 2), np.float32)
    np.testing.assert_array_equal(F.average_pooling_2d(x, 2, 1, 1).array[0, 0],
                                  [[0.25, 0.5, 0.25], [0.5, 1.0, 0.5], [0.25, 0.5, 0.25]])


def test_kernel_larger_than_the_padded_input():
    x = np.zeros((1, 2, 3, 4), np.float32)
    with pytest.raises(type_check.InvalidType, match=r'x.shape = \(1, 2, 3, 4\), ksize = '
                                                     r'\(4, 2\)'):
        F.average_pooling_2d(x, (4, 2), stride=2)
    assert F.average_pooling_2d(x, (4, 2), stride=2, pad=1).shape == (1, 2, 1, 3)


def test_invalid_inputs():
    with pytest.raises(type_check.InvalidType, match='x.ndim == 4'):
        F.average_pooling_2d(np.zeros((1, 2, 3), np.float32), 2)
    with pytest.raises(ValueError, match='stride must be at least 1'):
        F.average_pooling_2d(np.zeros((1, 2, 3, 3), np.float32), 2, stride=(1, 0))
