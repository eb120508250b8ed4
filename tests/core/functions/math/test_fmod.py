"""fmod, with gradients for both the dividend and the divisor."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _draw(shapes, dtype):
    """Draws x and a divisor (|divisor| >= 0.5) whose quotient is far from integers.

    fmod jumps where x / divisor is an integer; the gradient checks must not
    step across a jump.
    """
    x_shape, d_shape = shapes
    while True:
        x = np.random.uniform(-3, 3, x_shape).astype(dtype)
        sign = np.where(np.random.uniform(-1, 1, d_shape) < 0, -1.0, 1.0)
        divisor = (sign * np.random.uniform(0.5, 1.5, d_shape)).astype(dtype)
        quotient = x.astype(np.float64) / divisor.astype(np.float64)
        if np.all(np.abs(quotient - np.round(quotient)) > 0.1):
            return x, divisor


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shapes': [((3, 2), (3, 2)), ((3, 2), (2,)), ((), ())],
}))
class TestFmod(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def generate_inputs(self):
        return _draw(self.shapes, self.dtype)

    def forward(self, inputs, device):
        x, divisor = inputs
        return F.fmod(x, divisor),

    def forward_expected(self, inputs):
        x, divisor = (a.astype(np.float64) for a in inputs)
        quotient = x / divisor
        truncated = np.sign(quotient) * np.floor(np.abs(quotient))
        return np.asarray(x - truncated * divisor, dtype=self.dtype),


def test_sign_follows_the_dividend():
    y = F.fmod(np.array([5.0, -5.0, 5.0, -5.0]), np.array([3.0, 3.0, -3.0, -3.0]))
    np.testing.assert_array_equal(y.array, [2.0, -2.0, 2.0, -2.0])


def test_gradients():
    x = catena.Variable(np.array([5.5, -7.0, 1.0]))
    divisor = catena.Variable(np.array([2.0, 3.0, 4.0]))
    F.sum(F.fmod(x, divisor)).backward()
    np.testing.assert_array_equal(x.grad, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(divisor.grad, [-2.0, 2.0, 0.0])


def test_broadcast_divisor_gradient_is_summed():
    x = catena.Variable(np.array([[5.5, 2.5], [7.5, -2.5]], np.float32))
    divisor = catena.Variable(np.array([2.0, 1.0], np.float32))
    F.sum(F.fmod(x, divisor)).backward()
    assert divisor.grad.shape == (2,)
    np.testing.assert_array_equal(divisor.grad, [-(2 + 3), -(2 - 2)])


def test_bad_arguments_are_rejected():
    x = np.ones((3, 2), np.float32)
    with pytest.raises(InvalidType, match=r'divisor\.dtype == x\.dtype'):
        F.fmod(x, np.ones((3, 2), np.float64))
    with pytest.raises(InvalidType, match=r'x\.shape, divisor\.shape'):
        F.fmod(x, np.ones((4,), np.float32))
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        F.fmod(np.arange(3), np.arange(1, 4))
