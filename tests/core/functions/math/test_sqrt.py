"""sqrt and rsqrt."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

REFERENCE = {
    'sqrt': lambda x: x ** 0.5,
    'rsqrt': lambda x: x ** -0.5,
}


@testing.parameterize(*testing.product({
    'name': ['sqrt', 'rsqrt'],
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 2), ()],
}))
class TestSqrt(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(0.5, 3.0, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return getattr(F, self.name)(x),

    def forward_expected(self, inputs):
        x = inputs[0].astype(np.float64)
        return np.asarray(REFERENCE[self.name](x), dtype=self.dtype),


def test_known_values_and_gradients():
    x = catena.Variable(np.array([1.0, 4.0, 16.0], np.float32))
    y = F.sqrt(x)
    np.testing.assert_array_equal(y.array, [1.0, 2.0, 4.0])
    F.sum(y).backward()
    np.testing.assert_allclose(x.grad, [0.5, 0.25, 0.125])
    x.cleargrad()
    y = F.rsqrt(x)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.array, [1.0, 0.5, 0.25])
    F.sum(y).backward()
    np.testing.assert_allclose(x.grad, [-0.5, -0.5 / 8, -0.5 / 64])


@pytest.mark.parametrize('name', ['sqrt', 'rsqrt'])
def test_integer_input_is_rejected(name):
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        getattr(F, name)(np.arange(1, 4))
