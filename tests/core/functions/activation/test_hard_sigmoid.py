"""hard_sigmoid: clip(0.2 x + 0.5, 0, 1)."""

# ruff: noqa: NPY002

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
class TestHardSigmoid(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def generate_inputs(self):
        x = np.random.uniform(-4, 4, self.shape)
        for kink in (-2.5, 2.5):
            x = np.where(np.abs(x - kink) < 0.1, kink / 2, x)
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.hard_sigmoid(x),

    def forward_expected(self, inputs):
        x, = inputs
        y = np.clip(x.astype(np.float64) * 0.2 + 0.5, 0, 1)
        return np.asarray(y, dtype=self.dtype),


def test_values_and_gradient():
    x = catena.Variable(np.array([-3.0, -1.0, 0.0, 1.0, 3.0]))
    y = F.hard_sigmoid(x)
    np.testing.assert_allclose(y.array, [0.0, 0.3, 0.5, 0.7, 1.0])
    y.grad = np.ones(5)
    y.backward()
    np.testing.assert_allclose(x.grad, [0.0, 0.2, 0.2, 0.2, 0.0])
    assert type(y.creator_node).__name__ == 'HardSigmoid'


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match='x.dtype.kind'):
        F.hard_sigmoid(np.zeros(3, np.int32))
