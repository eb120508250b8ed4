"""expm1."""

# ruff: noqa: NPY002

import math

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
class TestExpm1(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.expm1(x),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(math.e ** x.astype(np.float64) - 1, dtype=self.dtype),


def test_small_inputs_keep_precision():
    # exp(x) - 1 would lose every digit of 1e-12 in float64.
    y = F.expm1(np.array([1e-12, -1e-12]))
    np.testing.assert_allclose(y.array, [1e-12 + 5e-25, -1e-12 + 5e-25], rtol=1e-12)


def test_gradient_is_exp():
    x = catena.Variable(np.array([-1.0, 0.0, 2.0]))
    F.sum(F.expm1(x)).backward()
    np.testing.assert_allclose(x.grad, np.exp(x.array))


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        F.expm1(np.arange(3))
