"""depthwise_convolution_2d: forward against loops, gradients to second order, bad shapes."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils import type_check


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _reference(x, W, b, stride, pad):
    n, c, h, w = x.shape
    m, _, kh, kw = W.shape
    oh = (h + 2 * pad[0] - kh) // stride[0] + 1
    ow = (w + 2 * pad[1] - kw) // stride[1] + 1
    y = np.zeros((n, c * m, oh, ow))
    for ch in range(c):
        for d in range(m):
            for i in range(oh):
                for j in range(ow):
                    total = np.zeros(n)
                    for p in range(kh):
                        for q in range(kw):
                            r = i * stride[0] + p - pad[0]
                            t = j * stride[1] + q - pad[1]
                            if 0 <= r < h and 0 <= t < w:
                                total += x[:, ch, r, t] * float(W[d, ch, p, q])
                    y[:, ch * m + d, i, j] = total
    if b is not None:
        y += b[None, :, None, None]
    return y


@testing.parameterize(*testing.product_dict(
    [
        {'x_shape': (2, 3, 4, 5), 'W_shape': (2, 3, 3, 2), 'stride': 1, 'pad': 0},
        {'x_shape': (1, 2, 5, 5), 'W_shape': (3, 2, 3, 3), 'stride': 2, 'pad': 1},
        {'x_shape': (2, 2, 4, 3), 'W_shape': (1, 2, 2, 2), 'stride': (1, 2), 'pad': (1, 0)},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
    [{'nobias': False}, {'nobias': True}],
))
class TestDepthwiseConvolution2D(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 1e-1, 'rtol': 1e-1}
            self.check_double_backward_options = {'atol': 1e-1, 'rtol': 1e-1}

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        W = np.random.uniform(-1, 1, self.W_shape).astype(self.dtype)
        if self.nobias:
            return x, W
        b = np.random.uniform(-1, 1, self.W_shape[0] * self.W_shape[1]).astype(self.dtype)
        return x, W, b

    def forward(self, inputs, device):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        return F.depthwise_convolution_2d(x, W, b, self.stride, self.pad),

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        return _reference(x, W, b, _pair(self.stride), _pair(self.pad)).astype(self.dtype),


def test_channel_mismatch():
    with pytest.raises(type_check.InvalidType, match=r'x.shape\[1\] == W.shape\[1\].*\n.*3 != 2'):
        F.depthwise_convolution_2d(np.zeros((1, 3, 4, 4), np.float32),
                                   np.zeros((2, 2, 3, 3), np.float32))
    with pytest.raises(type_check.InvalidType, match=r'x.shape=\(1, 3, 4\)'):
        F.depthwise_convolution_2d(np.zeros((1, 3, 4), np.float32),
                                   np.zeros((2, 3, 3, 3), np.float32))
    with pytest.raises(ValueError, match='larger than the padded input'):
        F.depthwise_convolution_2d(np.zeros((1, 3, 2, 2), np.float32),
                                   np.zeros((2, 3, 3, 3), np.float32))
