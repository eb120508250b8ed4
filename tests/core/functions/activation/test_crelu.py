"""crelu: concat(relu(x), relu(-x)) along an axis."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product_dict(
    [{'shape': (3, 4), 'axis': 1}, {'shape': (3, 4), 'axis': 0},
     {'shape': (3, 4), 'axis': -1}, {'shape': (2, 3, 4), 'axis': 2},
     {'shape': (2, 3, 4), 'axis': -2}, {'shape': (5,), 'axis': 0}],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestCReLU(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape)
        x[np.abs(x) < 0.1] = -0.5
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.crelu(x, axis=self.axis),

    def forward_expected(self, inputs):
        x, = inputs
        y = np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)], axis=self.axis)
        return y.astype(self.dtype),


def test_default_axis_is_1():
    x = catena.Variable(np.array([[-1.0, 2.0], [3.0, -4.0]], np.float32))
    y = F.crelu(x)
    assert y.shape == (2, 4)
    np.testing.assert_array_equal(y.array, [[0, 2, 1, 0], [3, 0, 0, 4]])
    assert type(y.creator_node).__name__ == 'CReLU'


def test_gradient_values():
    x = catena.Variable(np.array([[-1.0, 2.0]]))
    y = F.crelu(x)
    y.grad = np.array([[1.0, 2.0, 3.0, 4.0]])
    y.backward()
    # d/dx relu(x) picks the first half where x > 0, -(second half) where x < 0
    np.testing.assert_array_equal(x.grad, [[-3.0, 2.0]])


@pytest.mark.parametrize('axis', [2, -3])
def test_axis_out_of_range(axis):
    with pytest.raises(InvalidType, match='x.ndim'):
        F.crelu(np.zeros((2, 3), np.float32), axis=axis)


def test_axis_must_be_an_int():
    with pytest.raises(TypeError, match='crelu: axis must be an int'):
        F.crelu(np.zeros((2, 3), np.float32), axis=1.0)


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match='x.dtype.kind'):
        F.crelu(np.zeros((2, 3), np.int32))
