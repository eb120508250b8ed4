"""where."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _with_dtypes(params):
    """Every case in float32; the first case also in float16 and float64."""
    first = {key: values[:1] for key, values in params.items()}
    return (testing.product({**params, 'dtype': [np.float32]})
            + testing.product({**first, 'dtype': [np.float16, np.float64]}))


@testing.parameterize(*_with_dtypes({
    'shapes': [
        ((3, 2), (3, 2), (3, 2)),
        ((3, 1), (3, 2), (2,)),   # all three broadcast
        ((), (3, 2), (3, 2)),
        ((3, 2), (), (1, 2)),
    ],
}))
class TestWhere(testing.FunctionTestCase):

    def generate_inputs(self):
        c_shape, x_shape, y_shape = self.shapes
        condition = np.random.uniform(0, 1, c_shape) > 0.5
        x = np.random.uniform(-1, 1, x_shape).astype(self.dtype)
        y = np.random.uniform(-1, 1, y_shape).astype(self.dtype)
        return condition, x, y

    def forward(self, inputs, device):
        condition, x, y = inputs
        return F.where(condition, x, y),

    def forward_expected(self, inputs):
        condition, x, y = inputs
        shape = np.broadcast_shapes(condition.shape, x.shape, y.shape)
        c, xb, yb = (np.broadcast_to(a, shape) for a in (condition, x, y))
        out = yb.copy()
        out[c] = xb[c]
        return out,


def test_gradient_goes_to_the_chosen_side():
    condition = np.array([True, False, True])
    x = catena.Variable(np.array([1.0, 2.0, 3.0]))
    y = catena.Variable(np.array([4.0, 5.0, 6.0]))
    z = F.where(condition, x, y)
    np.testing.assert_array_equal(z.array, [1.0, 5.0, 3.0])
    z.grad = np.array([10.0, 20.0, 30.0])
    z.backward()
    np.testing.assert_array_equal(x.grad, [10.0, 0.0, 30.0])
    np.testing.assert_array_equal(y.grad, [0.0, 20.0, 0.0])


def test_condition_may_be_a_variable():
    condition = catena.Variable(np.array([False, True]))
    z = F.where(condition, np.zeros(2), np.ones(2))
    np.testing.assert_array_equal(z.array, [1.0, 0.0])


def test_non_boolean_condition_is_rejected():
    with pytest.raises(InvalidType, match='condition.dtype'):
        F.where(np.array([1, 0]), np.zeros(2), np.ones(2))


def test_dtype_mismatch_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.dtype == y\.dtype'):
        F.where(np.array([True, False]), np.zeros(2, np.float32), np.ones(2, np.float64))


def test_shapes_that_do_not_broadcast_are_rejected():
    with pytest.raises(InvalidType, match='condition.shape, x.shape, y.shape'):
        F.where(np.array([True, False]), np.zeros(3), np.ones(3))
