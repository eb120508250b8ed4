"""polygamma: forward against scipy.special.polygamma, gradients (x only), errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest
import scipy.special

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shapes': [((3, 2), (3, 2)), ((), ()), ((2,), (3, 2))],
}))
class TestPolyGamma(testing.FunctionTestCase):

    def generate_inputs(self):
        n_shape, x_shape = self.shapes
        n = np.random.randint(0, 4, n_shape).astype(np.int32)
        x = np.random.uniform(1.0, 4.0, x_shape).astype(self.dtype)
        return n, x

    def forward(self, inputs, device):
        n, x = inputs
        return F.polygamma(n, x),

    def forward_expected(self, inputs):
        n, x = inputs
        return np.asarray(scipy.special.polygamma(n, x.astype(np.float64)), dtype=self.dtype),


def test_order_zero_is_digamma_and_gradient_is_next_order():
    x = catena.Variable(np.linspace(0.5, 4.0, 6))
    n = np.array([0, 1, 2, 0, 1, 3])
    y = F.polygamma(n, x)
    assert type(y.creator).__name__ == 'PolyGamma'
    np.testing.assert_allclose(y.array[[0, 3]], scipy.special.psi(x.array[[0, 3]]), rtol=1e-12)
    y.grad = np.ones(6)
    y.backward()
    np.testing.assert_allclose(x.grad, scipy.special.polygamma(n + 1, x.array), rtol=1e-12)


def test_n_gets_no_gradient():
    n = catena.Variable(np.array([1, 2]), requires_grad=False)
    x = catena.Variable(np.array([1.5, 2.5]))
    gx, = catena.grad([F.polygamma(n, x)], [x], [np.ones(2)])
    assert gx is not None and n.grad is None


def test_float_order_is_rejected():
    with pytest.raises(InvalidType, match='n'):
        F.polygamma(np.array([1.0]), np.array([1.5]))


def test_integer_x_is_rejected():
    with pytest.raises(InvalidType, match='x'):
        F.polygamma(np.array([1]), np.array([2]))


def test_unbroadcastable_shapes_are_rejected():
    with pytest.raises(InvalidType):
        F.polygamma(np.array([1, 2, 3]), np.array([1.5, 2.5]))
