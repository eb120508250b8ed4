"""spatial_transformer_sampler."""

# ruff: noqa: NPY002

import math

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _with_dtypes(params):
    """Every case in float32; the first case also in float16 and float64."""
    first = {key: values[:1] for key, values in params.items()}
    return (testing.product({**params, 'dtype': [np.float32]})
            + testing.product({**first, 'dtype': [np.float16, np.float64]}))


def _reference(x, grid):
    n, c, h, w = x.shape
    out_h, out_w = grid.shape[2:]
    x64 = x.astype(np.float64)
    y = np.zeros((n, c, out_h, out_w))

    def pixel(b, row, col):
        if 0 <= row < h and 0 <= col < w:
            return x64[b, :, row, col]
        return np.zeros(c)  # zero padding

    for b in range(n):
        for p in range(out_h):
            for q in range(out_w):
                u = (float(grid[b, 0, p, q]) + 1) * (w - 1) / 2
                v = (float(grid[b, 1, p, q]) + 1) * (h - 1) / 2
                u0, v0 = math.floor(u), math.floor(v)
                fu, fv = u - u0, v - v0
                y[b, :, p, q] = ((1 - fu) * (1 - fv) * pixel(b, v0, u0)
                                 + fu * (1 - fv) * pixel(b, v0, u0 + 1)
                                 + (1 - fu) * fv * pixel(b, v0 + 1, u0)
                                 + fu * fv * pixel(b, v0 + 1, u0 + 1))
    return y.astype(x.dtype)


@testing.parameterize(*_with_dtypes({
    'shapes': [((2, 3, 4, 5), (3, 2)), ((1, 1, 3, 3), (4, 4)), ((2, 2, 1, 4), (2, 3))],
    'spread': [0.9, 1.6],  # inside only; reaching beyond the zero-padded border
}))
class TestSpatialTransformerSampler(testing.FunctionTestCase):

    # The sampler is piecewise bilinear in the grid: kinks where a point
    # crosses a pixel centre or the border.
    dodge_nondifferentiable = True
    # Chainer's sampler is an old-style Function, differentiable once only;
    # catena's raises when its gradient is differentiated again.
    skip_double_backward_test = True

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
        elif self.dtype == np.float32:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-3}

    def generate_inputs(self):
        x_shape, out_shape = self.shapes
        x = np.random.uniform(-1, 1, x_shape).astype(self.dtype)
        grid = np.random.uniform(-self.spread, self.spread,
                                 (x_shape[0], 2) + out_shape).astype(self.dtype)
        return x, grid

    def forward(self, inputs, device):
        x, grid = inputs
        return F.spatial_transformer_sampler(x, grid),

    def forward_expected(self, inputs):
        return _reference(*inputs),


def test_identity_grid_reproduces_the_image():
    x = np.random.rand(2, 3, 4, 5)
    theta = np.tile(np.array([[1.0, 0, 0], [0, 1.0, 0]]), (2, 1, 1))
    grid = F.spatial_transformer_grid(theta, (4, 5))
    np.testing.assert_allclose(F.spatial_transformer_sampler(x, grid).array, x, atol=1e-12)


def test_far_outside_is_zero_with_zero_gradient():
    x = catena.Variable(np.ones((1, 1, 3, 3)))
    grid = catena.Variable(np.array([[[[3.0, -1.0, 1.5]], [[0.0, 5.0, 0.0]]]]))
    y = F.spatial_transformer_sampler(x, grid)
    # The second point is far below; the third lies half a pixel beyond the right border.
    np.testing.assert_allclose(y.array, [[[[0.0, 0.0, 0.5]]]])
    F.sum(y).backward()
    np.testing.assert_allclose(grid.grad[0, :, 0, :2], 0.0)
    np.testing.assert_allclose(grid.grad[0, 0, 0, 2], -1.0)  # d/du of (1 - frac) * 1, times 2/2


def test_second_order_gradient_raises():
    x = catena.Variable(np.random.rand(1, 1, 3, 3))
    grid = catena.Variable(np.random.uniform(-0.9, 0.9, (1, 2, 2, 2)))
    y = F.spatial_transformer_sampler(x, grid)
    gx, = catena.grad([F.sum(y * y)], [grid], enable_double_backprop=True)
    with pytest.raises(RuntimeError, match='differentiated only once'):
        F.sum(gx * gx).backward()


def test_wrong_grid_shape_is_rejected():
    with pytest.raises(InvalidType, match=r'grid\.shape\[1\] == 2'):
        F.spatial_transformer_sampler(np.zeros((1, 1, 3, 3)), np.zeros((1, 3, 2, 2)))
    with pytest.raises(InvalidType, match=r'x\.shape\[0\] == grid\.shape\[0\]'):
        F.spatial_transformer_sampler(np.zeros((2, 1, 3, 3)), np.zeros((1, 2, 2, 2)))


def test_dtype_mismatch_is_rejected():
    with pytest.raises(InvalidType, match=r'grid\.dtype == x\.dtype'):
        F.spatial_transformer_sampler(np.zeros((1, 1, 3, 3), np.float32),
                                      np.zeros((1, 2, 2, 2), np.float64))


def test_gradient_of_one_input_alone_matches_both():
    x_data = np.random.rand(2, 3, 4, 5)
    grid_data = np.random.uniform(-1.2, 1.2, (2, 2, 3, 3))
    gy = np.random.rand(2, 3, 3, 3)
    both = [catena.Variable(x_data), catena.Variable(grid_data)]
    y = F.spatial_transformer_sampler(*both)
    y.grad = gy
    y.backward()
    grid_only = catena.Variable(grid_data)
    y = F.spatial_transformer_sampler(x_data, grid_only)
    y.grad = gy
    y.backward()
    np.testing.assert_array_equal(grid_only.grad, both[1].grad)
    x_only = catena.Variable(x_data)
    y = F.spatial_transformer_sampler(x_only, grid_data)
    y.grad = gy
    y.backward()
    np.testing.assert_array_equal(x_only.grad, both[0].grad)
