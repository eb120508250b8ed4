"""arctanh."""

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
class TestArctanh(testing.FunctionTestCase):

    def generate_inputs(self):
        # Away from the poles at -1 and 1.
        return np.random.uniform(-0.8, 0.8, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.arctanh(x),

    def forward_expected(self, inputs):
        x = inputs[0].astype(np.float64)
        return np.asarray(0.5 * np.log((1 + x) / (1 - x)), dtype=self.dtype),


def test_inverse_of_tanh_and_gradient():
    x = catena.Variable(np.array([-0.5, 0.0, 0.5]))
    y = F.arctanh(x)
    np.testing.assert_allclose(np.tanh(y.array), x.array)
    F.sum(y).backward()
    np.testing.assert_allclose(x.grad, [1 / 0.75, 1.0, 1 / 0.75])


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        F.arctanh(np.arange(3))
