"""det and batch_det."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'batched': [False, True],
    'n': [1, 3],
    'dtype': [np.float32, np.float64],
}))
class TestDet(testing.FunctionTestCase):

    def setUp(self):
        if self.dtype == np.float32:
            self.check_forward_options = {'atol': 1e-4, 'rtol': 1e-4}
            self.check_double_backward_options = {'atol': 5e-3, 'rtol': 5e-2}

    def generate_inputs(self):
        shape = (2, self.n, self.n) if self.batched else (self.n, self.n)
        a = np.random.uniform(-1, 1, shape) + np.eye(self.n)
        return a.astype(self.dtype),

    def forward(self, inputs, device):
        function = F.batch_det if self.batched else F.det
        return function(inputs[0]),

    def forward_expected(self, inputs):
        return np.asarray(np.linalg.det(inputs[0].astype(np.float64)), dtype=self.dtype),


def test_det_is_0d():
    y = F.det(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    assert y.shape == () and y.dtype == np.float32
    np.testing.assert_allclose(y.array, -2.0, rtol=1e-6)


def test_bad_shapes():
    with pytest.raises(ValueError, match='square'):
        F.det(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match='batch_det'):
        F.det(np.ones((2, 2, 2), np.float32))
    with pytest.raises(InvalidType, match='a.ndim'):
        F.batch_det(np.ones((2, 2), np.float32))
    with pytest.raises(InvalidType, match='a.shape'):
        F.batch_det(np.ones((2, 2, 3), np.float32))
