"""tanh: forward, backward and double backward on every device."""

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
class TestTanh(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-2, 2, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.tanh(x),

    def forward_expected(self, inputs):
        x, = inputs
        e = np.exp(-2 * x.astype(np.float64))
        return np.asarray((1 - e) / (1 + e), dtype=self.dtype),


def test_saturates_without_overflow():
    y = F.tanh(np.array([-100.0, 100.0], np.float32))
    np.testing.assert_array_equal(y.array, [-1.0, 1.0])


def test_gradient_from_output():
    x = catena.Variable(np.array([0.5, -1.5]))
    y = F.tanh(x)
    y.grad = np.ones(2)
    y.backward()
    np.testing.assert_allclose(x.grad, 1 - np.tanh(x.array) ** 2)
    assert type(y.creator_node).__name__ == 'Tanh'


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match='x.dtype.kind'):
        F.tanh(np.array([1, 2], np.int32))
