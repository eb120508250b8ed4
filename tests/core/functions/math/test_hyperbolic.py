"""cosh and sinh."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

REFERENCE = {
    'cosh': lambda x: (np.exp(x) + np.exp(-x)) / 2,
    'sinh': lambda x: (np.exp(x) - np.exp(-x)) / 2,
}


@testing.parameterize(*testing.product({
    'name': ['cosh', 'sinh'],
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 2), ()],
}))
class TestHyperbolic(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-2, 2, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return getattr(F, self.name)(x),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(REFERENCE[self.name](x.astype(np.float64)), dtype=self.dtype),


def test_gradients_are_each_other():
    x = catena.Variable(np.array([-1.0, 0.0, 0.5]))
    F.sum(F.cosh(x)).backward()
    np.testing.assert_allclose(x.grad, np.sinh(x.array))
    x.cleargrad()
    F.sum(F.sinh(x)).backward()
    np.testing.assert_allclose(x.grad, np.cosh(x.array))


@pytest.mark.parametrize('name', ['cosh', 'sinh'])
def test_integer_input_is_rejected(name):
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        getattr(F, name)(np.arange(3))
