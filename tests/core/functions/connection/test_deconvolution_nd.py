"""deconvolution_nd / _1d / _3d: forward against an n-d scatter loop, gradients, outsize."""

# ruff: noqa: NPY002

import itertools

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils import type_check


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def _reference(x, W, b, stride, pad, outsize, dilate, groups):
    """Each input element adds W (times the element) onto its window of the output."""
    dims = x.shape[2:]
    ksize = W.shape[2:]
    cg = x.shape[1] // groups
    ocg = W.shape[1]
    if outsize is None:
        outsize = tuple(s * (n - 1) + (k - 1) * d + 1 - 2 * p
                        for n, k, s, p, d in zip(dims, ksize, stride, pad, dilate))
    big = tuple(o + 2 * p + 2 * k * d for o, p, k, d in zip(outsize, pad, ksize, dilate))
    full = np.zeros((x.shape[0], ocg * groups) + big)
    for pos in itertools.product(*(range(n) for n in dims)):
        for tap in itertools.product(*(range(k) for k in ksize)):
            dst = tuple(i * s + t * d for i, s, t, d in zip(pos, stride, tap, dilate))
            for g in range(groups):
                xs = x[(slice(None), slice(g * cg, (g + 1) * cg)) + pos].astype(np.float64)
                ws = W[(slice(g * cg, (g + 1) * cg), slice(None)) + tap].astype(np.float64)
                full[(slice(None), slice(g * ocg, (g + 1) * ocg)) + dst] += xs @ ws
    y = full[(slice(None), slice(None)) + tuple(slice(p, p + o) for p, o in zip(pad, outsize))]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * len(dims))
    return y


@testing.parameterize(*testing.product_dict(
    [
        {'x_shape': (2, 3, 4), 'k': (3,), 'stride': 2, 'pad': 1, 'outsize': None,
         'dilate': 1, 'groups': 1},
        {'x_shape': (1, 4, 3), 'k': (2,), 'stride': 3, 'pad': 0, 'outsize': (8,),
         'dilate': 2, 'groups': 2},
        {'x_shape': (2, 2, 2, 3, 2), 'k': (2, 2, 2), 'stride': 1, 'pad': 0, 'outsize': None,
         'dilate': 1, 'groups': 1},
        {'x_shape': (1, 2, 2, 3, 2), 'k': (3, 2, 2), 'stride': (2, 1, 2), 'pad': (1, 0, 1),
         'outsize': (4, 5, 3), 'dilate': (1, 2, 1), 'groups': 2},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestDeconvolutionND(testing.FunctionTestCase):

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
        W = np.random.uniform(-1, 1, (c, 4 // self.groups) + self.k).astype(self.dtype)
        b = np.random.uniform(-1, 1, 4).astype(self.dtype)
        return x, W, b

    def forward(self, inputs, device):
        x, W, b = inputs
        fn = F.deconvolution_1d if x.ndim == 3 else F.deconvolution_3d
        return fn(x, W, b, self.stride, self.pad, self.outsize, self.dilate, self.groups),

    def forward_expected(self, inputs):
        x, W, b = inputs
        nd = x.ndim - 2
        y = _reference(x, W, b, _tuple(self.stride, nd), _tuple(self.pad, nd), self.outsize,
                       _tuple(self.dilate, nd), self.groups)
        return y.astype(self.dtype),


def test_nd_matches_2d():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 3, 4))
    W = rng.standard_normal((4, 3, 3, 2))
    kwargs = {'stride': 2, 'pad': (1, 0), 'outsize': (6, 9), 'dilate': (1, 2), 'groups': 2}
    np.testing.assert_allclose(F.deconvolution_nd(x, W, **kwargs).array,
                               F.deconvolution_2d(x, W, **kwargs).array, rtol=1e-12)


def test_node_name_and_cover_all():
    x = catena.Variable(np.random.rand(1, 2, 3))
    W = catena.Variable(np.random.rand(2, 1, 3))
    y = F.deconvolution_nd(x, W, stride=2, outsize=(6,))
    assert type(y.creator).__name__ == 'DeconvolutionND'
    assert y.creator.cover_all
    gx, = catena.grad([y], [x], grad_outputs=[np.ones(y.shape)])
    assert gx.shape == x.shape


def test_errors():
    x = np.zeros((1, 2, 3), np.float32)
    with pytest.raises(ValueError, match=r'outsize=\(9,\) does not match the input') as info:
        F.deconvolution_nd(x, np.zeros((2, 1, 3), np.float32), stride=2, outsize=(9,))
    assert isinstance(info.value, type_check.InvalidType)
    with pytest.raises(ValueError, match='outsize must be an int or a sequence of 1 ints'):
        F.deconvolution_nd(x, np.zeros((2, 1, 3), np.float32), outsize=(5, 5))
    with pytest.raises(type_check.InvalidType, match=r'x.shape\[1\] == W.shape\[0\]'):
        F.deconvolution_nd(x, np.zeros((3, 1, 3), np.float32))
    with pytest.raises(ValueError, match='deconvolution_1d'):
        F.deconvolution_1d(np.zeros((1, 2, 3, 3), np.float32), np.zeros((2, 1, 3, 3)))
    with pytest.raises(ValueError, match='deconvolution_3d'):
        F.deconvolution_3d(x, np.zeros((2, 1, 3), np.float32))
