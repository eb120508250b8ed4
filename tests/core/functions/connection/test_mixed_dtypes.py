"""Convolutions, deconvolutions and local_convolution_2d with W of another float dtype than x.

As in Chainer, the output (and the gradient of x) has x's dtype, the gradient
of W has W's, and b must have x's dtype.
"""

# ruff: noqa: NPY002

import itertools

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils import type_check

_FLOATS = (np.float16, np.float32, np.float64)
_PAIRS = [{'x_dtype': a, 'W_dtype': b} for a, b in itertools.product(_FLOATS, _FLOATS)
          if a != b]


def _window(pos, stride, ksize):
    return tuple(slice(i * s, i * s + k) for i, s, k in zip(pos, stride, ksize))


def _conv_reference(x, W, b, stride, pad, groups):
    """N-d cross-correlation in float64, one output position at a time."""
    x = x.astype(np.float64)
    W = W.astype(np.float64)
    nd = x.ndim - 2
    ksize = W.shape[2:]
    padded = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    outs = [(size + 2 * p - k) // s + 1
            for size, k, s, p in zip(x.shape[2:], ksize, stride, pad)]
    n, c = x.shape[:2]
    c_out = W.shape[0]
    cg, og = c // groups, c_out // groups
    axes = list(range(1, nd + 2))
    y = np.zeros((n, c_out) + tuple(outs))
    for pos in itertools.product(*[range(o) for o in outs]):
        patch = padded[(slice(None), slice(None)) + _window(pos, stride, ksize)]
        for g in range(groups):
            y[(slice(None), slice(g * og, (g + 1) * og)) + pos] = np.tensordot(
                patch[:, g * cg:(g + 1) * cg], W[g * og:(g + 1) * og], (axes, axes))
    if b is not None:
        y += b.astype(np.float64).reshape((1, -1) + (1,) * nd)
    return y


def _deconv_reference(x, W, b, stride, pad, groups):
    """N-d transposed convolution in float64: every input element scatters W."""
    x = x.astype(np.float64)
    W = W.astype(np.float64)
    nd = x.ndim - 2
    ksize = W.shape[2:]
    n, c = x.shape[:2]
    og = W.shape[1]
    cg = c // groups
    full = [s * (size - 1) + k for size, k, s in zip(x.shape[2:], ksize, stride)]
    y = np.zeros((n, og * groups) + tuple(full))
    for pos in itertools.product(*[range(size) for size in x.shape[2:]]):
        for g in range(groups):
            y[(slice(None), slice(g * og, (g + 1) * og)) + _window(pos, stride, ksize)] += \
                np.tensordot(x[(slice(None), slice(g * cg, (g + 1) * cg)) + pos],
                             W[g * cg:(g + 1) * cg], (1, 0))
    y = y[(slice(None), slice(None)) + tuple(slice(p, f - p) for p, f in zip(pad, full))]
    if b is not None:
        y = y + b.astype(np.float64).reshape((1, -1) + (1,) * nd)
    return y


def _local_reference(x, W, b, stride):
    """Unshared convolution in float64: each output position has its own filter."""
    x = x.astype(np.float64)
    W = W.astype(np.float64)
    c_out, oh, ow = W.shape[:3]
    y = np.zeros((x.shape[0], c_out, oh, ow))
    for i, j in itertools.product(range(oh), range(ow)):
        patch = x[(slice(None), slice(None)) + _window((i, j), stride, W.shape[4:])]
        y[:, :, i, j] = np.tensordot(patch, W[:, i, j], ((1, 2, 3), (1, 2, 3)))
    if b is not None:
        y += b
    return y


# Each case: the function, the shapes of x and W (c_out 4), its keyword arguments.
_CASES = [
    {'op': 'convolution_2d', 'x_shape': (2, 4, 5, 4), 'W_shape': (4, 2, 3, 2),
     'stride': (2, 1), 'pad': (1, 0), 'groups': 2},
    {'op': 'convolution_nd', 'x_shape': (2, 3, 4, 3, 3), 'W_shape': (4, 3, 2, 2, 2),
     'stride': (1, 2, 1), 'pad': (0, 1, 1), 'groups': 1},
    {'op': 'deconvolution_2d', 'x_shape': (2, 4, 3, 2), 'W_shape': (4, 2, 3, 2),
     'stride': (2, 1), 'pad': (1, 0), 'groups': 2},
    {'op': 'deconvolution_nd', 'x_shape': (1, 3, 3, 2, 2), 'W_shape': (3, 4, 2, 2, 3),
     'stride': (1, 2, 1), 'pad': (0, 1, 1), 'groups': 1},
    {'op': 'local_convolution_2d', 'x_shape': (2, 3, 5, 4), 'W_shape': (4, 2, 2, 3, 3, 2),
     'stride': (2, 2), 'pad': (0, 0), 'groups': 1},
]


@testing.parameterize(*testing.product_dict(
    _PAIRS, _CASES, [{'nobias': False}, {'nobias': True}]))
class TestWeightOfAnotherDtype(testing.FunctionTestCase):

    def before_test(self, test_name):
        if np.float16 in (self.x_dtype, self.W_dtype):
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'dtype': np.float64, 'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'dtype': np.float64, 'atol': 5e-2,
                                                  'rtol': 5e-2}
        else:
            self.check_backward_options = {'dtype': np.float64, 'atol': 1e-3, 'rtol': 1e-3}
            self.check_double_backward_options = {'dtype': np.float64, 'atol': 1e-3,
                                                  'rtol': 1e-3}

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.x_shape).astype(self.x_dtype)
        W = np.random.uniform(-1, 1, self.W_shape).astype(self.W_dtype)
        if self.nobias:
            return x, W
        b_shape = self.W_shape[:3] if self.op == 'local_convolution_2d' else (4,)
        return x, W, np.random.uniform(-1, 1, b_shape).astype(self.x_dtype)

    def forward(self, inputs, device):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        if self.op == 'local_convolution_2d':
            return F.local_convolution_2d(x, W, b, stride=self.stride),
        kwargs = {'stride': self.stride, 'pad': self.pad, 'groups': self.groups}
        return getattr(F, self.op)(x, W, b, **kwargs),

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        if self.op == 'local_convolution_2d':
            y = _local_reference(x, W, b, self.stride)
        elif self.op.startswith('deconvolution'):
            y = _deconv_reference(x, W, b, self.stride, self.pad, self.groups)
        else:
            y = _conv_reference(x, W, b, self.stride, self.pad, self.groups)
        return y.astype(self.x_dtype),


@pytest.mark.parametrize('case', _CASES, ids=lambda case: case['op'])
@pytest.mark.parametrize('x_dtype, W_dtype', [(np.float16, np.float32),
                                               (np.float64, np.float16)])
def test_gradients_have_their_inputs_dtypes(case, x_dtype, W_dtype):
    rng = np.random.default_rng(0)
    x = catena.Variable(rng.uniform(-1, 1, case['x_shape']).astype(x_dtype))
    W = catena.Variable(rng.uniform(-1, 1, case['W_shape']).astype(W_dtype))
    if case['op'] == 'local_convolution_2d':
        y = F.local_convolution_2d(x, W, stride=case['stride'])
    else:
        y = getattr(F, case['op'])(x, W, stride=case['stride'], pad=case['pad'],
                                   groups=case['groups'])
    assert y.dtype == x_dtype
    gx, gW = catena.grad([y], [x, W], grad_outputs=[np.ones(y.shape, x_dtype)],
                         enable_double_backprop=True)
    assert gx.dtype == x_dtype and gW.dtype == W_dtype
    # The second order flows back to both inputs in their own dtypes too.
    ggx, ggW = catena.grad([F.sum(gx * gx), F.sum(gW * gW)], [x, W])
    assert ggx.dtype == x_dtype and ggW.dtype == W_dtype


@pytest.mark.parametrize('call', [
    lambda x, W, b: F.convolution_2d(x, W, b),
    lambda x, W, b: F.deconvolution_2d(x, W, b),
    lambda x, W, b: F.convolution_nd(x, W, b),
    lambda x, W, b: F.deconvolution_nd(x, W, b),
])
def test_bias_must_have_the_dtype_of_x(call):
    x = np.zeros((1, 2, 3, 3), np.float32)
    W = np.zeros((2, 2, 1, 1), np.float64)
    with pytest.raises(type_check.InvalidType, match='b.dtype == x.dtype'):
        call(x, W, np.zeros(2, np.float64))
    with pytest.raises(type_check.InvalidType, match='W.dtype.kind == f'):
        call(x, W.astype(np.int32), None)


def test_local_convolution_2d_bias_must_have_the_dtype_of_x():
    x = np.zeros((1, 2, 3, 3), np.float16)
    W = np.zeros((1, 3, 3, 2, 1, 1), np.float32)
    with pytest.raises(type_check.InvalidType, match='b.dtype == x.dtype'):
        F.local_convolution_2d(x, W, np.zeros((1, 3, 3), np.float32))
