"""logsumexp."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'shape_axis': [((3, 2, 4), None), ((3, 2, 4), 0), ((3, 2, 4), -1), ((3, 2, 4), (0, 2)),
                   ((5,), 0), ((), None)],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestLogSumExp(testing.FunctionTestCase):

    def setUp(self):
        self.shape, self.axis = self.shape_axis
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.logsumexp(inputs[0], axis=self.axis),

    def forward_expected(self, inputs):
        x = inputs[0].astype(np.float64)
        return np.asarray(np.log(np.exp(x).sum(axis=self.axis)), dtype=self.dtype),


def test_large_values_do_not_overflow():
    x = np.array([[1000.0, 1000.0], [-1000.0, -1001.0]], np.float32)
    y = F.logsumexp(x, axis=1).array
    expected = [1000 + np.log(2), -1000 + np.log1p(np.exp(-1))]
    np.testing.assert_allclose(y, expected, rtol=1e-6)


def test_bad_axis():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(InvalidType, match='axis'):
        F.logsumexp(x, axis=2)
    with pytest.raises(ValueError, match='axis'):
        F.logsumexp(x, axis=(0, 0))
    with pytest.raises(TypeError, match='axis'):
        F.logsumexp(x, axis=0.5)
