"""convolution_2d: forward against direct loops, gradients to second order, bad arguments."""

# ruff: noqa: NPY002

import itertools

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.connection import convolution_2d as conv_module
from catena.utils import type_check


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _reference(x, W, b, stride, pad, cover_all, dilate, groups):
    """Cross-correlation by loops over output positions and kernel taps, in float64."""
    n, c, h, w = x.shape
    oc, cg, kh, kw = W.shape
    ocg = oc // groups
    outs = []
    for size, k, s, p, d in zip((h, w), (kh, kw), stride, pad, dilate):
        span = (k - 1) * d + 1
        count = 0
        # windows start at -p, -p + s, ...; a window is kept when it fits in the padded
        # input, or (cover_all) when it still starts on a pixel not yet covered.
        while True:
            start = count * s - p
            if start + span <= size + p:
                count += 1
            elif cover_all and count * s - p + span - s < size + p:
                count += 1
            else:
                break
        outs.append(count)
    y = np.zeros((n, oc) + tuple(outs))
    for i, j in itertools.product(range(outs[0]), range(outs[1])):
        for p, q in itertools.product(range(kh), range(kw)):
            r = i * stride[0] + p * dilate[0] - pad[0]
            t = j * stride[1] + q * dilate[1] - pad[1]
            if not (0 <= r < h and 0 <= t < w):
                continue
            for g in range(groups):
                xs = x[:, g * cg:(g + 1) * cg, r, t].astype(np.float64)
                ws = W[g * ocg:(g + 1) * ocg, :, p, q].astype(np.float64)
                y[:, g * ocg:(g + 1) * ocg, i, j] += xs @ ws.T
    if b is not None:
        y += b[None, :, None, None]
    return y


@testing.parameterize(*testing.product_dict(
    [
        {'x_shape': (2, 4, 5, 4), 'k': (3, 2), 'stride': 1, 'pad': 0, 'cover_all': False,
         'dilate': 1, 'groups': 1},
        {'x_shape': (2, 4, 6, 5), 'k': (3, 2), 'stride': 2, 'pad': 1, 'cover_all': False,
         'dilate': 1, 'groups': 1},
        {'x_shape': (2, 2, 6, 5), 'k': (3, 2), 'stride': 2, 'pad': 0, 'cover_all': True,
         'dilate': 1, 'groups': 1},
        {'x_shape': (1, 3, 7, 6), 'k': (2, 3), 'stride': (2, 1), 'pad': (1, 2),
         'cover_all': False, 'dilate': (2, 1), 'groups': 1},
        {'x_shape': (2, 4, 5, 5), 'k': (3, 3), 'stride': 1, 'pad': 1, 'cover_all': False,
         'dilate': 1, 'groups': 2},
        {'x_shape': (1, 6, 5, 4), 'k': (1, 1), 'stride': 1, 'pad': 0, 'cover_all': False,
         'dilate': 1, 'groups': 3},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
    [{'nobias': False}, {'nobias': True}],
))
class TestConvolution2D(testing.FunctionTestCase):

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
        W = np.random.uniform(-1, 1, (6, c // self.groups) + self.k).astype(self.dtype)
        if self.nobias:
            return x, W
        return x, W, np.random.uniform(-1, 1, 6).astype(self.dtype)

    def forward(self, inputs, device):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        return F.convolution_2d(x, W, b, self.stride, self.pad, self.cover_all,
                                dilate=self.dilate, groups=self.groups),

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        y = _reference(x, W, b, _pair(self.stride), _pair(self.pad), self.cover_all,
                       _pair(self.dilate), self.groups)
        return y.astype(self.dtype),


def test_output_is_contiguous_and_nodes_are_named():
    x = catena.Variable(np.random.rand(2, 3, 5, 5).astype(np.float32))
    W = catena.Variable(np.random.rand(4, 3, 3, 3).astype(np.float32))
    y = F.convolution_2d(x, W, pad=1)
    assert y.array.flags.c_contiguous
    assert type(y.creator) is conv_module.Convolution2DFunction
    gx, gW = catena.grad([y], [x, W], grad_outputs=[np.ones(y.shape, np.float32)],
                         enable_double_backprop=True)
    assert type(gx.creator).__name__ == 'Deconvolution2DFunction'
    assert type(gW.creator) is conv_module.Convolution2DGradW


def test_cover_all_changes_the_output_size():
    x = np.zeros((1, 1, 6, 6), np.float32)
    W = np.zeros((1, 1, 3, 3), np.float32)
    assert F.convolution_2d(x, W, stride=2).shape == (1, 1, 2, 2)
    assert F.convolution_2d(x, W, stride=2, cover_all=True).shape == (1, 1, 3, 3)


@pytest.mark.parametrize('x_shape, W_shape, kwargs, text', [
    ((2, 3, 5, 5), (4, 2, 3, 3), {}, 'x.shape[1] == W.shape[1]\nActual: 3 != 2'),
    ((2, 4, 5, 5), (4, 3, 3, 3), {'groups': 2}, 'x.shape[1] == W.shape[1] * 2'),
    ((2, 4, 5, 5), (3, 2, 3, 3), {'groups': 2}, 'W.shape[0] % 2 == 0'),
    ((2, 3, 5), (4, 3, 3, 3), {}, 'x.ndim == 4'),
])
def test_invalid_types(x_shape, W_shape, kwargs, text):
    x = np.zeros(x_shape, np.float32)
    W = np.zeros(W_shape, np.float32)
    with pytest.raises(type_check.InvalidType) as info:
        F.convolution_2d(x, W, **kwargs)
    assert text in str(info.value)


def test_bias_and_dtype_mismatch():
    x = np.zeros((1, 3, 5, 5), np.float32)
    with pytest.raises(type_check.InvalidType, match=r'b.shape\[0\] == W.shape\[0\]'):
        F.convolution_2d(x, np.zeros((4, 3, 3, 3), np.float32), np.zeros(3, np.float32))
    with pytest.raises(type_check.InvalidType, match='b.dtype == x.dtype'):
        F.convolution_2d(x, np.zeros((4, 3, 3, 3), np.float64), np.zeros(4, np.float64))
    with pytest.raises(type_check.InvalidType, match='W.dtype.kind == f'):
        F.convolution_2d(x, np.zeros((4, 3, 3, 3), np.int32))


def test_kernel_larger_than_the_padded_input():
    x = np.zeros((1, 3, 4, 4), np.float32)
    W = np.zeros((2, 3, 5, 3), np.float32)
    with pytest.raises(ValueError, match=r'x.shape=\(1, 3, 4, 4\), W.shape=\(2, 3, 5, 3\)'):
        F.convolution_2d(x, W)
    assert F.convolution_2d(x, W, pad=1).shape == (1, 2, 2, 4)
    with pytest.raises(ValueError, match='larger than the padded input'):
        F.convolution_2d(x, np.zeros((2, 3, 3, 3), np.float32), dilate=2)


@pytest.mark.parametrize('kwargs, error', [
    ({'stride': 0}, 'stride must be at least 1'),
    ({'pad': -1}, 'pad must be at least 0'),
    ({'dilate': (1, 2, 3)}, 'dilate must be an int or a sequence of 2 ints'),
    ({'groups': 0}, 'groups must be a positive int'),
])
def test_invalid_parameters(kwargs, error):
    with pytest.raises(ValueError, match=error):
        F.convolution_2d(np.zeros((1, 1, 3, 3), np.float32),
                         np.zeros((1, 1, 1, 1), np.float32), **kwargs)
