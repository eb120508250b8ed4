"""log1p."""

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
class TestLog1p(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-0.5, 1.5, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.log1p(x),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(np.log(1 + x.astype(np.float64)), dtype=self.dtype),


def test_small_inputs_keep_precision():
    # log(1 + x) would lose every digit of 1e-12 in float64.
    y = F.log1p(np.array([1e-12, -1e-12]))
    np.testing.assert_allclose(y.array, [1e-12 - 5e-25, -1e-12 - 5e-25], rtol=1e-12)


def test_gradient_formula():
    x = catena.Variable(np.array([-0.5, 0.0, 3.0]))
    F.sum(F.log1p(x)).backward()
    np.testing.assert_allclose(x.grad, [2.0, 1.0, 0.25])


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        F.log1p(np.arange(3))
