"""convolution_nd / _1d / _3d: forward against n-d loops, gradients to second order."""

# ruff: noqa: NPY002

import itertools

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.connection import convolution_nd as conv_module
from catena.utils import type_check


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def _reference(x, W, b, stride, pad, cover_all, dilate, groups):
    """N-d cross-correlation by loops over output positions and taps, in float64."""
    dims = x.shape[2:]
    ksize = W.shape[2:]
    oc, cg = W.shape[:2]
    ocg = oc // groups
    outs = []
    for size, k, s, p, d in zip(dims, ksize, stride, pad, dilate):
        extent = size + 2 * p - (k - 1) * d - 1
        outs.append((extent + (s - 1 if cover_all else 0)) // s + 1)
    y = np.zeros((x.shape[0], oc) + tuple(outs))
    for pos in itertools.product(*(range(o) for o in outs)):
        for tap in itertools.product(*(range(k) for k in ksize)):
            src = tuple(o * s + t * d - p for o, s, t, d, p in zip(pos, stride, tap, dilate, pad))
            if not all(0 <= i < n for i, n in zip(src, dims)):
                continue
            for g in range(groups):
                xs = x[(slice(None), slice(g * cg, (g + 1) * cg)) + src].astype(np.float64)
                ws = W[(slice(g * ocg, (g + 1) * ocg), slice(None)) + tap].astype(np.float64)
                y[(slice(None), slice(g * ocg, (g + 1) * ocg)) + pos] += xs @ ws.T
    if b is not None:
        y += b.reshape((1, -1) + (1,) * len(dims))
    return y


@testing.parameterize(*testing.product_dict(
    [
        {'x_shape': (2, 3, 7), 'k': (3,), 'stride': 2, 'pad': 1, 'cover_all': False,
         'dilate': 1, 'groups': 1},
        {'x_shape': (1, 4, 8), 'k': (2,), 'stride': 3, 'pad': 0, 'cover_all': True,
         'dilate': 2, 'groups': 2},
        {'x_shape': (2, 2, 4, 3, 3), 'k': (2, 2, 2), 'stride': 1, 'pad': 0,
         'cover_all': False, 'dilate': 1, 'groups': 1},
        {'x_shape': (1, 2, 4, 5, 3), 'k': (3, 2, 2), 'stride': (2, 1, 2), 'pad': (1, 0, 1),
         'cover_all': True, 'dilate': (1, 2, 1), 'groups': 2},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestConvolutionND(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 1e-1, 'rtol': 1e-1}
            self.check_double_backward_options = {'atol': 1e-1, 'rtol': 1e-1}
        elif self.dtype == np.float32:
            self.check_double_backward_options = {'atol': 5e-3, 'rtol': 5e-2}

    def generate_inputs(self):
        c = self.x_shape[1]
        x = np.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        W = np.random.uniform(-1, 1, (4, c // self.groups) + self.k).astype(self.dtype)
        b = np.random.uniform(-1, 1, 4).astype(self.dtype)
        return x, W, b

    def forward(self, inputs, device):
        x, W, b = inputs
        if x.ndim == 3:
            fn = F.convolution_1d
        elif x.ndim == 5:
            fn = F.convolution_3d
        return fn(x, W, b, self.stride, self.pad, self.cover_all, self.dilate, self.groups),

    def forward_expected(self, inputs):
        x, W, b = inputs
        nd = x.ndim - 2
        y = _reference(x, W, b, _tuple(self.stride, nd), _tuple(self.pad, nd), self.cover_all,
                       _tuple(self.dilate, nd), self.groups)
        return y.astype(self.dtype),


def test_nd_matches_2d():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 6, 5))
    W = rng.standard_normal((6, 2, 3, 2))
    b = rng.standard_normal(6)
    kwargs = {'stride': (2, 1), 'pad': 1, 'cover_all': True, 'dilate': (1, 2), 'groups': 2}
    np.testing.assert_allclose(F.convolution_nd(x, W, b, **kwargs).array,
                               F.convolution_2d(x, W, b, **kwargs).array, rtol=1e-12)


def test_nodes_are_named():
    x = catena.Variable(np.random.rand(1, 2, 5))
    W = catena.Variable(np.random.rand(3, 2, 2))
    y = F.convolution_nd(x, W)
    assert type(y.creator) is conv_module.ConvolutionND
    gW, = catena.grad([y], [W], grad_outputs=[np.ones(y.shape)], enable_double_backprop=True)
    assert type(gW.creator) is conv_module.ConvolutionNDGradW


def test_wrappers_check_the_rank():
    with pytest.raises(ValueError, match=r'convolution_1d takes x of shape \(n, c, w\)'):
        F.convolution_1d(np.zeros((1, 1, 3, 3), np.float32), np.zeros((1, 1, 1), np.float32))
    with pytest.raises(ValueError, match=r'convolution_3d.*x.shape=\(1, 1, 3\)'):
        F.convolution_3d(np.zeros((1, 1, 3), np.float32), np.zeros((1, 1, 1), np.float32))
    with pytest.raises(ValueError, match='N >= 1'):
        F.convolution_nd(np.zeros((1, 1), np.float32), np.zeros((1, 1), np.float32))


def test_shape_errors():
    x = np.zeros((1, 3, 4, 4, 4), np.float32)
    with pytest.raises(type_check.InvalidType, match=r'x.shape\[1\] == W.shape\[1\]\n'):
        F.convolution_nd(x, np.zeros((2, 2, 2, 2, 2), np.float32))
    with pytest.raises(type_check.InvalidType, match='W.ndim == 5'):
        F.convolution_nd(x, np.zeros((2, 3, 2, 2), np.float32))
    with pytest.raises(ValueError, match=r'larger than the padded input: x.shape=\(1, 3, 4, 4, '
                                         r'4\), W.shape=\(2, 3, 2, 5, 2\)'):
        F.convolution_nd(x, np.zeros((2, 3, 2, 5, 2), np.float32))
    with pytest.raises(ValueError, match='stride must be an int or a sequence of 3 ints'):
        F.convolution_nd(x, np.zeros((2, 3, 2, 2, 2), np.float32), stride=(1, 1))
