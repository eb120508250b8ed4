"""square."""

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
class TestSquare(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-2, 2, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.square(x),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(x * x, dtype=self.dtype),


def test_known_values_and_gradient():
    x = catena.Variable(np.array([-3.0, 0.5], np.float32))
    y = F.square(x)
    np.testing.assert_array_equal(y.array, [9.0, 0.25])
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, [-6.0, 1.0])


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        F.square(np.arange(3))
