"""linear_interpolate(p, x, y) = p * x + (1 - p) * y."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 2), ()],
}))
class TestLinearInterpolate(testing.FunctionTestCase):

    def generate_inputs(self):
        p = np.random.uniform(0, 1, self.shape).astype(self.dtype)
        x = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        y = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return p, x, y

    def forward(self, inputs, device):
        p, x, y = inputs
        return F.linear_interpolate(p, x, y),

    def forward_expected(self, inputs):
        p, x, y = (a.astype(np.float64) for a in inputs)
        return np.asarray(y + p * (x - y), dtype=self.dtype),


def test_known_values_and_gradients():
    p = catena.Variable(np.array([0.0, 0.25, 1.0]))
    x = catena.Variable(np.array([4.0, 4.0, 4.0]))
    y = catena.Variable(np.array([0.0, 2.0, 8.0]))
    out = F.linear_interpolate(p, x, y)
    np.testing.assert_array_equal(out.array, [0.0, 2.5, 4.0])
    F.sum(out).backward()
    np.testing.assert_array_equal(p.grad, [4.0, 2.0, -4.0])
    np.testing.assert_array_equal(x.grad, [0.0, 0.25, 1.0])
    np.testing.assert_array_equal(y.grad, [1.0, 0.75, 0.0])


def test_bad_arguments_are_rejected():
    a = np.zeros((3,), np.float32)
    with pytest.raises(InvalidType, match=r'x\.shape == p\.shape'):
        F.linear_interpolate(a, np.zeros((4,), np.float32), a)
    with pytest.raises(InvalidType, match=r'y\.dtype == p\.dtype'):
        F.linear_interpolate(a, a, np.zeros((3,), np.float64))
    with pytest.raises(InvalidType, match=r'p\.dtype\.kind == f'):
        F.linear_interpolate(np.arange(3), np.arange(3), np.arange(3))
