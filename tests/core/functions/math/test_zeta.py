"""zeta: forward against scipy.special.zeta, gradient with respect to q, errors."""

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
    'shape': [(3, 2), ()],
    'x_kind': ['array', 'scalar'],
}))
class TestZeta(testing.FunctionTestCase):

    def setUp(self):
        if self.x_kind == 'array':
            self.x = np.random.uniform(2.0, 4.0, self.shape).astype(self.dtype)
        else:
            self.x = 3.0

    def generate_inputs(self):
        return np.random.uniform(0.5, 3.0, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        q, = inputs
        x = device.send(self.x) if isinstance(self.x, np.ndarray) else self.x
        return F.zeta(x, q),

    def forward_expected(self, inputs):
        q, = inputs
        x = np.asarray(self.x, dtype=np.float64)
        return np.asarray(scipy.special.zeta(x, q.astype(np.float64)), dtype=self.dtype),


def test_gradient_is_with_respect_to_q():
    x = np.array([2.0, 3.0, 4.5])
    q = catena.Variable(np.array([0.5, 1.0, 2.0]))
    y = F.zeta(x, q)
    assert type(y.creator).__name__ == 'Zeta'
    assert y.creator.x is x
    y.grad = np.ones(3)
    y.backward()
    np.testing.assert_allclose(q.grad, -x * scipy.special.zeta(x + 1, q.array), rtol=1e-12)


def test_broadcasting_x_sums_the_gradient_of_q():
    x = np.array([[2.0], [3.0]])
    q = catena.Variable(np.array([0.5, 1.0, 2.0]))
    y = F.zeta(x, q)
    assert y.shape == (2, 3)
    y.grad = np.ones((2, 3))
    y.backward()
    expected = (-x * scipy.special.zeta(x + 1, q.array)).sum(axis=0)
    np.testing.assert_allclose(q.grad, expected, rtol=1e-12)


def test_x_as_a_variable_is_rejected():
    with pytest.raises(TypeError, match='differentiable with respect to q only'):
        F.zeta(catena.Variable(np.array([2.0])), np.array([1.0]))


def test_integer_q_is_rejected():
    with pytest.raises(InvalidType, match='q'):
        F.zeta(2.0, np.array([1, 2]))
