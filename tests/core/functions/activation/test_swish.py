"""swish: x * sigmoid(beta * x), with beta broadcast along axes 1, 2, ..."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _expand(beta, x_ndim):
    return beta.reshape((1,) + beta.shape + (1,) * (x_ndim - 1 - beta.ndim))


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shapes': [((4, 3, 2), (3,)), ((4, 3, 2), ()), ((4, 3, 2), (3, 2)), ((5, 3), (3,))],
}))
class TestSwish(testing.FunctionTestCase):

    def generate_inputs(self):
        x_shape, beta_shape = self.shapes
        x = np.random.uniform(-2, 2, x_shape)
        beta = np.random.uniform(-1, 1, beta_shape)
        return x.astype(self.dtype), beta.astype(self.dtype)

    def forward(self, inputs, device):
        x, beta = inputs
        return F.swish(x, beta),

    def forward_expected(self, inputs):
        x, beta = inputs
        x = x.astype(np.float64)
        b = _expand(beta.astype(np.float64), x.ndim)
        return (x / (1 + np.exp(-b * x))).astype(self.dtype),


def test_values_and_gradients():
    x = catena.Variable(np.array([[-1.0, 2.0]]))
    beta = catena.Variable(np.array([1.0, 0.5]))
    y = F.swish(x, beta)
    assert type(y.creator_node).__name__ == 'Swish'
    s = 1 / (1 + np.exp(-beta.array * x.array))
    np.testing.assert_allclose(y.array, x.array * s)
    y.grad = np.ones((1, 2))
    y.backward()
    np.testing.assert_allclose(x.grad, s + beta.array * x.array * s * (1 - s))
    np.testing.assert_allclose(beta.grad, (x.array ** 2 * s * (1 - s))[0])


@pytest.mark.parametrize('x_shape, beta_shape', [((4, 3), (4,)), ((4, 3), (3, 1))])
def test_mismatched_beta_shape(x_shape, beta_shape):
    with pytest.raises(InvalidType, match='beta'):
        F.swish(np.zeros(x_shape, np.float32), np.zeros(beta_shape, np.float32))


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match='x.dtype.kind'):
        F.swish(np.zeros((2, 3), np.int32), np.zeros(3, np.int32))
