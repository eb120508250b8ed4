"""spatial_transformer_grid."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _with_dtypes(params):
    """Every case in float32; the first case also in float16 and float64."""
    first = {key: values[:1] for key, values in params.items()}
    return (testing.product({**params, 'dtype': [np.float32]})
            + testing.product({**first, 'dtype': [np.float16, np.float64]}))


def _reference(theta, height, width):
    n = theta.shape[0]
    grid = np.zeros((n, 2, height, width))
    for i in range(height):
        y_t = -1 + 2 * i / (height - 1) if height > 1 else -1.0
        for j in range(width):
            x_t = -1 + 2 * j / (width - 1) if width > 1 else -1.0
            source = theta.astype(np.float64) @ np.array([x_t, y_t, 1.0])
            grid[:, :, i, j] = source
    return grid.astype(theta.dtype)


@testing.parameterize(*_with_dtypes({
    'output_shape': [(3, 4), (1, 2), (5, 1)],
    'n': [1, 3],
}))
class TestSpatialTransformerGrid(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (self.n, 2, 3)).astype(self.dtype),

    def forward(self, inputs, device):
        return F.spatial_transformer_grid(inputs[0], self.output_shape),

    def forward_expected(self, inputs):
        return _reference(inputs[0], *self.output_shape),


def test_identity_theta_gives_the_regular_grid():
    theta = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    grid = F.spatial_transformer_grid(theta, (2, 3)).array
    np.testing.assert_array_equal(grid[0, 0], [[-1, 0, 1], [-1, 0, 1]])
    np.testing.assert_array_equal(grid[0, 1], [[-1, -1, -1], [1, 1, 1]])


def test_wrong_theta_shape_is_rejected():
    with pytest.raises(InvalidType, match=r'theta\.shape\[2\] == 3'):
        F.spatial_transformer_grid(np.zeros((1, 2, 2)), (2, 2))
    with pytest.raises(InvalidType, match=r'theta\.ndim == 3'):
        F.spatial_transformer_grid(np.zeros((2, 3)), (2, 2))


def test_integer_theta_is_rejected():
    with pytest.raises(InvalidType, match=r'theta\.dtype\.kind == f'):
        F.spatial_transformer_grid(np.zeros((1, 2, 3), np.int32), (2, 2))


@pytest.mark.parametrize('shape', [(2,), (0, 2), (2, 2, 2)])
def test_bad_output_shape_is_rejected(shape):
    with pytest.raises(ValueError, match='output_shape must be a pair of positive ints'):
        F.spatial_transformer_grid(np.zeros((1, 2, 3)), shape)
