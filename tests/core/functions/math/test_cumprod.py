"""cumprod, with its gradient exact at zeros too."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'shape_axis': [((3, 4), None), ((3, 4), 0), ((3, 4), 1), ((2, 3, 4), -1), ((5,), 0),
                   ((), None)],
    'dtype': [np.float16, np.float32, np.float64],
    'zeros': [False],
}), *testing.product({
    'shape_axis': [((3, 4), None), ((3, 4), 1), ((2, 3, 4), 0)],
    'dtype': [np.float32, np.float64],
    'zeros': [True],
}))
class TestCumprod(testing.FunctionTestCase):

    def setUp(self):
        self.shape, self.axis = self.shape_axis
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}

    def generate_inputs(self):
        # Magnitudes near one keep products in range; the sign is random.
        x = np.random.uniform(0.5, 1.5, self.shape) * np.random.choice([-1, 1], self.shape)
        if self.zeros and x.size > 1:
            x.reshape(-1)[[1, -2]] = 0  # a polynomial: smooth at zeros
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        return F.cumprod(inputs[0], axis=self.axis),

    def forward_expected(self, inputs):
        return np.cumprod(inputs[0].astype(np.float64), axis=self.axis).astype(self.dtype),


def test_gradient_at_a_zero():
    x_var = catena.Variable(np.array([2.0, 0.0, 3.0]))
    y = F.cumprod(x_var)  # [2, 0, 0]
    y.grad = np.ones(3)
    y.backward()
    # d/dx1 of (2 + 2 x1 + 2 x1 x2) = 2 + 2 * 3 = 8; d/dx0 = 1 + x1 + x1 x2 = 1.
    np.testing.assert_allclose(x_var.grad, [1.0, 8.0, 0.0])


def test_bad_axis():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(InvalidType, match='axis'):
        F.cumprod(x, axis=2)
    with pytest.raises(TypeError, match='axis'):
        F.cumprod(x, axis=1.0)
