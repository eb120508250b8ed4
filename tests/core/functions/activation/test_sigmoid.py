"""sigmoid: 1 / (1 + exp(-x)), computed without overflow."""

# ruff: noqa: NPY002

import warnings

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 4), ()],
}))
class TestSigmoid(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-3, 3, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.sigmoid(x),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(1 / (1 + np.exp(-x.astype(np.float64))), dtype=self.dtype),


def test_extreme_inputs_saturate_quietly():
    x = np.array([-1000.0, 0.0, 1000.0], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        y = F.sigmoid(x)
    np.testing.assert_array_equal(y.array, [0.0, 0.5, 1.0])


def test_gradient_from_output():
    x = catena.Variable(np.array([-1.0, 0.5]))
    y = F.sigmoid(x)
    y.grad = np.ones(2)
    y.backward()
    s = 1 / (1 + np.exp(-x.array))
    np.testing.assert_allclose(x.grad, s * (1 - s))
    assert type(y.creator_node).__name__ == 'Sigmoid'


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match='x.dtype.kind'):
        F.sigmoid(np.zeros(3, np.int32))
