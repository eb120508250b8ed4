"""maximum and minimum broadcast their inputs; gradients are summed back to each shape."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing

SELECT = {'maximum': np.greater_equal, 'minimum': np.less_equal}


@testing.parameterize(*testing.product({
    'name': ['maximum', 'minimum'],
    'dtype': [np.float16, np.float32, np.float64],
    'shapes': [((3, 2), (3, 1)), ((2,), (3, 2)), ((), (2, 3)), ((4, 1, 3), (2, 1))],
}))
class TestBroadcastingMaximumMinimum(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def setUp(self):
        if self.dtype == np.float16:
            self.check_backward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_double_backward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        x1_shape, x2_shape = self.shapes
        x1 = np.random.uniform(-1, 1, x1_shape)
        x2 = np.random.uniform(-1, 1, x2_shape)
        # Keep every pair away from ties, where the function has a kink.
        b1, b2 = np.broadcast_arrays(x1, x2)
        while (np.abs(b1 - b2) < 0.1).any():
            x2 = np.random.uniform(-1, 1, x2_shape)
            b1, b2 = np.broadcast_arrays(x1, x2)
        return x1.astype(self.dtype), x2.astype(self.dtype)

    def forward(self, inputs, device):
        x1, x2 = inputs
        return getattr(F, self.name)(x1, x2),

    def forward_expected(self, inputs):
        x1, x2 = np.broadcast_arrays(*inputs)
        return np.where(SELECT[self.name](x1, x2), x1, x2).astype(self.dtype),


@pytest.mark.parametrize('name', ['maximum', 'minimum'])
def test_broadcast_gradients_are_summed_per_input(name):
    x1 = catena.Variable(np.array([[0.0], [5.0]]))           # (2, 1)
    x2 = catena.Variable(np.array([1.0, -1.0, 3.0]))         # (3,)
    y = getattr(F, name)(x1, x2)
    assert y.shape == (2, 3)
    gy = np.arange(1.0, 7.0).reshape(2, 3)
    y.grad = gy
    y.backward()
    to_x1 = SELECT[name](*np.broadcast_arrays(x1.array, x2.array))
    assert x1.grad.shape == (2, 1) and x2.grad.shape == (3,)
    np.testing.assert_array_equal(x1.grad, np.where(to_x1, gy, 0).sum(axis=1, keepdims=True))
    np.testing.assert_array_equal(x2.grad, np.where(to_x1, 0, gy).sum(axis=0))
