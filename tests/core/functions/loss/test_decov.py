"""decov: forward against explicit sums, gradients to second order, bad arguments."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _off_diagonal_covariance(h):
    n, m = h.shape
    mean = [sum(h[a, i] for a in range(n)) / n for i in range(m)]
    c = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            if i != j:
                c[i, j] = sum((h[a, i] - mean[i]) * (h[a, j] - mean[j]) for a in range(n)) / n
    return c


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'reduce': ['half_squared_sum', 'no'],
}))
class TestDeCov(testing.FunctionTestCase):

    def setUp(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (5, 3)).astype(self.dtype),

    def forward(self, inputs, device):
        return F.decov(inputs[0], self.reduce),

    def forward_expected(self, inputs):
        c = _off_diagonal_covariance(inputs[0].astype(np.float64))
        if self.reduce == 'no':
            return c.astype(self.dtype),
        return np.asarray(0.5 * (c ** 2).sum(), dtype=self.dtype),


def test_variances_are_not_penalized():
    h = np.array([[3.0, 0.0], [-3.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    assert float(F.decov(h).array) == 0.0  # large but uncorrelated units
    h[:, 1] = h[:, 0]
    assert float(F.decov(h).array) > 0


def test_bad_arguments():
    with pytest.raises(InvalidType, match='h.ndim == 2'):
        F.decov(np.zeros((2, 3, 4), np.float32))
    with pytest.raises(InvalidType, match='h.dtype.kind == f'):
        F.decov(np.zeros((2, 3), np.int32))
    with pytest.raises(ValueError, match="reduce.*'sum'"):
        F.decov(np.zeros((2, 3), np.float32), reduce='sum')
