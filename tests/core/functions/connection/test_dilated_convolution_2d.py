"""dilated_convolution_2d: forward against loops and gradients to second order."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing


def _reference(x, W, b, stride, pad, dilate, cover_all):
    n, c, h, w = x.shape
    oc, _, kh, kw = W.shape
    outs = []
    for size, k, s, p, d in zip((h, w), (kh, kw), stride, pad, dilate):
        extent = size + 2 * p - (k - 1) * d - 1
        outs.append((extent + (s - 1 if cover_all else 0)) // s + 1)
    y = np.zeros((n, oc) + tuple(outs))
    for i in range(outs[0]):
        for j in range(outs[1]):
            for p in range(kh):
                for q in range(kw):
                    r = i * stride[0] + p * dilate[0] - pad[0]
                    t = j * stride[1] + q * dilate[1] - pad[1]
                    if 0 <= r < h and 0 <= t < w:
                        y[:, :, i, j] += x[:, :, r, t].astype(np.float64) @ W[:, :, p, q].T
    return y + b[None, :, None, None]


@testing.parameterize(*testing.product_dict(
    [
        {'stride': (1, 1), 'pad': (0, 0), 'dilate': (2, 2), 'cover_all': False},
        {'stride': (2, 1), 'pad': (2, 1), 'dilate': (2, 3), 'cover_all': True},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestDilatedConvolution2D(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 1e-1, 'rtol': 1e-1}
            self.check_double_backward_options = {'atol': 1e-1, 'rtol': 1e-1}

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, (2, 3, 6, 7)).astype(self.dtype)
        W = np.random.uniform(-1, 1, (2, 3, 2, 3)).astype(self.dtype)
        b = np.random.uniform(-1, 1, 2).astype(self.dtype)
        return x, W, b

    def forward(self, inputs, device):
        x, W, b = inputs
        return F.dilated_convolution_2d(x, W, b, self.stride, self.pad, self.dilate,
                                        self.cover_all),

    def forward_expected(self, inputs):
        x, W, b = inputs
        return _reference(x, W, b, self.stride, self.pad, self.dilate,
                          self.cover_all).astype(self.dtype),


def test_dilated_kernel_larger_than_the_input():
    with pytest.raises(ValueError, match=r'x.shape=\(1, 1, 4, 4\), W.shape=\(1, 1, 3, 3\)'):
        F.dilated_convolution_2d(np.zeros((1, 1, 4, 4), np.float32),
                                 np.zeros((1, 1, 3, 3), np.float32), dilate=2)
