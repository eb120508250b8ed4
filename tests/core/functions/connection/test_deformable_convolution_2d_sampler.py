"""deformable_convolution_2d_sampler: forward against loops, gradients, bad shapes."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils import type_check


def _bilinear(image, y, x):
    """Samples a (c, h, w) image at (y, x), zero outside."""
    c, h, w = image.shape
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    total = np.zeros(c)
    for r in (y0, y0 + 1):
        for q in (x0, x0 + 1):
            if 0 <= r < h and 0 <= q < w:
                total += (1 - abs(y - r)) * (1 - abs(x - q)) * image[:, r, q]
    return total


def _reference(x, offset, W, b, stride, pad):
    n, c, h, w = x.shape
    c_out, _, kh, kw = W.shape
    out_h, out_w = offset.shape[2:]
    y = np.zeros((n, c_out, out_h, out_w))
    for s in range(n):
        image = x[s].astype(np.float64)
        for i in range(out_h):
            for j in range(out_w):
                for p in range(kh):
                    for q in range(kw):
                        t = p * kw + q
                        sy = i * stride[0] + p - pad[0] + float(offset[s, kh * kw + t, i, j])
                        sx = j * stride[1] + q - pad[1] + float(offset[s, t, i, j])
                        y[s, :, i, j] += W[:, :, p, q] @ _bilinear(image, sy, sx)
    if b is not None:
        y += b[None, :, None, None]
    return y


@testing.parameterize(*testing.product_dict(
    [
        {'x_shape': (2, 3, 4, 5), 'k': (2, 3), 'stride': (1, 1), 'pad': (0, 0)},
        {'x_shape': (1, 2, 5, 4), 'k': (3, 3), 'stride': (2, 1), 'pad': (1, 1)},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
    [{'nobias': False}, {'nobias': True}],
))
class TestDeformableConvolution2DSampler(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 2e-2, 'rtol': 2e-2}
            self.check_backward_options = {'atol': 1e-1, 'rtol': 1e-1}
            self.check_double_backward_options = {'atol': 1e-1, 'rtol': 1e-1}

    def generate_inputs(self):
        n, c, h, w = self.x_shape
        kh, kw = self.k
        out_h = (h + 2 * self.pad[0] - kh) // self.stride[0] + 1
        out_w = (w + 2 * self.pad[1] - kw) // self.stride[1] + 1
        x = np.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        # Offsets away from integers, where the interpolation has kinks; some reach
        # outside the image.
        whole = np.random.randint(-2, 2, (n, 2 * kh * kw, out_h, out_w))
        offset = (whole + np.random.uniform(0.1, 0.9, whole.shape)).astype(self.dtype)
        W = np.random.uniform(-1, 1, (3, c, kh, kw)).astype(self.dtype)
        if self.nobias:
            return x, offset, W
        return x, offset, W, np.random.uniform(-1, 1, 3).astype(self.dtype)

    def forward(self, inputs, device):
        x, offset, W = inputs[:3]
        b = inputs[3] if len(inputs) == 4 else None
        return F.deformable_convolution_2d_sampler(x, offset, W, b, self.stride, self.pad),

    def forward_expected(self, inputs):
        x, offset, W = inputs[:3]
        b = inputs[3] if len(inputs) == 4 else None
        return _reference(x, offset, W, b, self.stride, self.pad).astype(self.dtype),


def test_zero_offsets_give_the_convolution():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5, 6))
    W = rng.standard_normal((4, 3, 3, 2))
    b = rng.standard_normal(4)
    offset = np.zeros((2, 12, 3, 3))
    y = F.deformable_convolution_2d_sampler(x, offset, W, b, stride=(2, 2), pad=(1, 0))
    expected = F.convolution_2d(x, W, b, stride=(2, 2), pad=(1, 0))
    np.testing.assert_allclose(y.array, expected.array, rtol=1e-12, atol=1e-12)


def test_shape_errors():
    x = np.zeros((1, 2, 4, 4), np.float32)
    W = np.zeros((3, 2, 3, 3), np.float32)
    with pytest.raises(type_check.InvalidType, match=r'offset.shape\[:2\].*\n.*\(1, 9\) != '
                                                     r'\(1, 18\)'):
        F.deformable_convolution_2d_sampler(x, np.zeros((1, 9, 2, 2), np.float32), W)
    with pytest.raises(ValueError, match=r'output size \(2, 2\).*offsets are given for '
                                         r'\(3, 3\)'):
        F.deformable_convolution_2d_sampler(x, np.zeros((1, 18, 3, 3), np.float32), W)
    with pytest.raises(type_check.InvalidType, match=r'x.shape\[1\] == W.shape\[1\]'):
        F.deformable_convolution_2d_sampler(x, np.zeros((1, 18, 2, 2), np.float32),
                                            np.zeros((3, 1, 3, 3), np.float32))
    with pytest.raises(type_check.InvalidType, match='x.dtype == offset.dtype == W.dtype'):
        F.deformable_convolution_2d_sampler(x, np.zeros((1, 18, 2, 2), np.float64), W)
