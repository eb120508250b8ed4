"""cholesky."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'n': [1, 4],
    'dtype': [np.float32, np.float64],
}))
class TestCholesky(testing.FunctionTestCase):

    def setUp(self):
        if self.dtype == np.float32:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-2}
            self.check_double_backward_options = {'atol': 5e-3, 'rtol': 5e-2}

    def generate_inputs(self):
        a = np.random.uniform(-1, 1, (self.n, self.n))
        return (a @ a.T + self.n * np.eye(self.n)).astype(self.dtype),

    def forward(self, inputs, device):
        a, = inputs
        # Symmetrize, so that numerical gradients perturb a symmetric matrix.
        return F.cholesky((a + F.transpose(a)) * 0.5),

    def forward_expected(self, inputs):
        a = inputs[0].astype(np.float64)
        return np.linalg.cholesky((a + a.T) / 2).astype(self.dtype),


def test_reconstructs_the_matrix():
    a = np.array([[4.0, 2.0, 0.4], [2.0, 5.0, 1.0], [0.4, 1.0, 3.0]])
    lower = F.cholesky(a).array
    np.testing.assert_allclose(lower @ lower.T, a, rtol=1e-12)
    np.testing.assert_array_equal(np.triu(lower, 1), 0)


def test_not_positive_definite():
    with pytest.raises(np.linalg.LinAlgError):
        F.cholesky(-np.eye(2, dtype=np.float32))


def test_bad_shapes():
    with pytest.raises(InvalidType, match='a.ndim'):
        F.cholesky(np.ones((2, 2, 2), np.float32))
    with pytest.raises(InvalidType, match='a.shape'):
        F.cholesky(np.ones((2, 3), np.float32))
