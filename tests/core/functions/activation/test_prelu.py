"""prelu: x for x >= 0, W * x below, with W broadcast along axes 1, 2, ..."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _expand(W, x_ndim):
    return W.reshape((1,) + W.shape + (1,) * (x_ndim - 1 - W.ndim))


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shapes': [((4, 3, 2), (3,)), ((4, 3, 2), ()), ((4, 3, 2), (3, 2)), ((5, 3), (3,))],
}))
class TestPReLU(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def generate_inputs(self):
        x_shape, w_shape = self.shapes
        x = np.random.uniform(-1, 1, x_shape)
        x[np.abs(x) < 0.1] = 0.5
        W = np.random.uniform(-1, 1, w_shape)
        return x.astype(self.dtype), W.astype(self.dtype)

    def forward(self, inputs, device):
        x, W = inputs
        return F.prelu(x, W),

    def forward_expected(self, inputs):
        x, W = inputs
        x = x.astype(np.float64)
        y = np.where(x >= 0, x, _expand(W.astype(np.float64), x.ndim) * x)
        return y.astype(self.dtype),


def test_gradient_of_W_sums_over_the_shared_axes():
    x = catena.Variable(np.array([[-1.0, 2.0], [-3.0, -4.0], [5.0, -6.0]]))
    W = catena.Variable(np.array([0.5, 0.25]))
    y = F.prelu(x, W)
    np.testing.assert_allclose(y.array, [[-0.5, 2.0], [-1.5, -1.0], [5.0, -1.5]])
    assert type(y.creator_node).__name__ == 'PReLUFunction'
    y.grad = np.ones((3, 2))
    y.backward()
    np.testing.assert_allclose(W.grad, [-1.0 - 3.0, -4.0 - 6.0])
    np.testing.assert_allclose(x.grad, [[0.5, 1.0], [0.5, 0.25], [1.0, 0.25]])


@pytest.mark.parametrize('x_shape, w_shape', [
    ((4, 3), (4,)),       # W must match axis 1, not axis 0
    ((4, 3), (3, 1)),     # more axes than x has after the batch axis
    ((4, 3, 2), (2,)),
])
def test_mismatched_W_shape(x_shape, w_shape):
    with pytest.raises(InvalidType, match='W'):
        F.prelu(np.zeros(x_shape, np.float32), np.zeros(w_shape, np.float32))


def test_W_dtype_must_match():
    with pytest.raises(InvalidType, match=r'W.dtype == x.dtype'):
        F.prelu(np.zeros((2, 3), np.float32), np.zeros(3, np.float64))
