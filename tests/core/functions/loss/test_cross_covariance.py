"""cross_covariance: forward against explicit sums, gradients to second order, bad arguments."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _cross_covariance(y, z):
    n, m = y.shape
    k = z.shape[1]
    y_mean = [sum(y[a, i] for a in range(n)) / n for i in range(m)]
    z_mean = [sum(z[a, j] for a in range(n)) / n for j in range(k)]
    c = np.empty((m, k))
    for i in range(m):
        for j in range(k):
            c[i, j] = sum((y[a, i] - y_mean[i]) * (z[a, j] - z_mean[j]) for a in range(n)) / n
    return c


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'reduce': ['half_squared_sum', 'no'],
}))
class TestCrossCovariance(testing.FunctionTestCase):

    def setUp(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}

    def generate_inputs(self):
        y = np.random.uniform(-1, 1, (5, 3)).astype(self.dtype)
        z = np.random.uniform(-1, 1, (5, 2)).astype(self.dtype)
        return y, z

    def forward(self, inputs, device):
        y, z = inputs
        return F.cross_covariance(y, z, self.reduce),

    def forward_expected(self, inputs):
        y, z = (a.astype(np.float64) for a in inputs)
        c = _cross_covariance(y, z)
        if self.reduce == 'no':
            return c.astype(self.dtype),
        return np.asarray(0.5 * (c ** 2).sum(), dtype=self.dtype),


def test_uncorrelated_batches_cost_nothing():
    y = np.array([[1.0], [-1.0], [1.0], [-1.0]])
    z = np.array([[1.0], [1.0], [-1.0], [-1.0]])
    assert float(F.cross_covariance(y, z).array) == 0.0
    assert float(F.cross_covariance(y, y).array) == 0.5  # variance 1, halved


def test_node_class_and_gradient_of_matrix():
    y = catena.Variable(np.random.uniform(-1, 1, (4, 2)))
    z = catena.Variable(np.random.uniform(-1, 1, (4, 3)))
    c = F.cross_covariance(y, z, reduce='no')
    assert type(c.creator).__name__ == 'CrossCovariance'
    assert c.shape == (2, 3)


def test_bad_arguments():
    y = np.zeros((3, 2), np.float32)
    with pytest.raises(InvalidType, match=r'y.shape=\(3, 2\).*z.shape=\(4, 2\)'):
        F.cross_covariance(y, np.zeros((4, 2), np.float32))
    with pytest.raises(InvalidType, match='y.dtype=float32.*z.dtype=float64'):
        F.cross_covariance(y, np.zeros((3, 2), np.float64))
    with pytest.raises(InvalidType, match='z.ndim == 2'):
        F.cross_covariance(y, np.zeros((3,), np.float32))
    with pytest.raises(ValueError, match="reduce.*'mean'"):
        F.cross_covariance(y, y, reduce='mean')
