"""relu: max(0, x); the gradient comes from the output (ReLUGrad2)."""

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
class TestReLU(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape)
        x[np.abs(x) < 0.1] = 0.5  # away from the kink at 0
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.relu(x),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(np.where(x > 0, x, 0), dtype=self.dtype),


def test_values_and_gradient():
    x = catena.Variable(np.array([-2.0, -0.5, 0.0, 0.5, 3.0], np.float32))
    y = F.relu(x)
    np.testing.assert_array_equal(y.array, [0, 0, 0, 0.5, 3])
    assert y.dtype == np.float32
    y.grad = np.full(5, 2, np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, [0, 0, 0, 2, 2])


def test_backward_uses_the_output_and_relu_grad2():
    x = catena.Variable(np.array([-1.0, 2.0]))
    y = F.relu(x)
    assert type(y.creator_node).__name__ == 'ReLU'
    gx, = catena.grad([y], [x], grad_outputs=[catena.Variable(np.ones(2))],
                      enable_double_backprop=True)
    assert type(gx.creator_node).__name__ == 'ReLUGrad2'
    # The input is not needed for the gradient: only the output is retained.
    assert y.creator_node._input_indexes_to_retain is None
    assert y.creator_node._output_indexes_to_retain == (0,)


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match='x.dtype.kind'):
        F.relu(np.array([1, -2], np.int32))
