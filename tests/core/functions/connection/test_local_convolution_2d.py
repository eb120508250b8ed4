"""local_convolution_2d: forward against loops, gradients to second order, bad shapes."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils import type_check


@testing.parameterize(*testing.product_dict(
    [
        {'x_shape': (2, 3, 4, 5), 'k': (2, 3), 'stride': 1},
        {'x_shape': (1, 2, 5, 5), 'k': (3, 2), 'stride': (2, 1)},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
    [{'nobias': False}, {'nobias': True}],
))
class TestLocalConvolution2D(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 1e-1, 'rtol': 1e-1}
            self.check_double_backward_options = {'atol': 1e-1, 'rtol': 1e-1}

    def _outs(self):
        s = (self.stride, self.stride) if isinstance(self.stride, int) else self.stride
        return s, tuple((n - k) // t + 1 for n, k, t in zip(self.x_shape[2:], self.k, s))

    def generate_inputs(self):
        _, (oh, ow) = self._outs()
        c = self.x_shape[1]
        x = np.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        W = np.random.uniform(-1, 1, (2, oh, ow, c) + self.k).astype(self.dtype)
        if self.nobias:
            return x, W
        return x, W, np.random.uniform(-1, 1, (2, oh, ow)).astype(self.dtype)

    def forward(self, inputs, device):
        return F.local_convolution_2d(*inputs, stride=self.stride),

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        (sy, sx), (oh, ow) = self._outs()
        kh, kw = self.k
        y = np.zeros((x.shape[0], W.shape[0], oh, ow))
        for i in range(oh):
            for j in range(ow):
                patch = x[:, :, i * sy:i * sy + kh, j * sx:j * sx + kw].astype(np.float64)
                for o in range(W.shape[0]):
                    y[:, o, i, j] = (patch * W[o, i, j]).sum(axis=(1, 2, 3))
        if len(inputs) == 3:
            y += inputs[2]
        return y.astype(self.dtype),


def test_shape_errors():
    x = np.zeros((1, 2, 4, 4), np.float32)
    with pytest.raises(type_check.InvalidType,
                       match=r'x.shape\[1\] == W.shape\[3\].*\n.*2 != 3'):
        F.local_convolution_2d(x, np.zeros((1, 3, 3, 3, 2, 2), np.float32))
    with pytest.raises(ValueError, match=r'output size \(3, 3\).*positions of W'):
        F.local_convolution_2d(x, np.zeros((1, 2, 2, 2, 2, 2), np.float32))
    with pytest.raises(type_check.InvalidType, match=r'W.ndim == 6'):
        F.local_convolution_2d(x, np.zeros((1, 2, 2, 2), np.float32))
    with pytest.raises(type_check.InvalidType,
                       match=r'b.shape == W.shape\[:3\].*\n.*\(1, 3\) != \(1, 3, 3\)'):
        F.local_convolution_2d(x, np.zeros((1, 3, 3, 2, 2, 2), np.float32),
                               np.zeros((1, 3), np.float32))
