"""leaky_relu: x for x >= 0, slope * x below."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*(testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 4)],
    'slope': [0.2, 0.0, -0.3, 1.5],
}) + testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [()],
    'slope': [0.2],
})))
class TestLeakyReLU(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape)
        x[np.abs(x) < 0.1] = -0.5
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.leaky_relu(x, slope=self.slope),

    def forward_expected(self, inputs):
        x, = inputs
        x = x.astype(np.float64)
        return np.asarray(np.where(x >= 0, x, self.slope * x), dtype=self.dtype),


def test_default_slope_is_0_2():
    x = catena.Variable(np.array([-1.0, 2.0], np.float32))
    y = F.leaky_relu(x)
    np.testing.assert_allclose(y.array, [-0.2, 2.0])
    y.grad = np.ones(2, np.float32)
    y.backward()
    np.testing.assert_allclose(x.grad, [0.2, 1.0])
    assert type(y.creator_node).__name__ == 'LeakyReLU'


@pytest.mark.parametrize('slope', [0.0, -0.5])
def test_gradient_with_a_non_positive_slope(slope):
    # y no longer tells the sign of x: the gradient must come from x.
    x = catena.Variable(np.array([-1.0, 2.0, -3.0]))
    y = F.leaky_relu(x, slope=slope)
    y.grad = np.ones(3)
    y.backward()
    np.testing.assert_array_equal(x.grad, [slope, 1.0, slope])


@pytest.mark.parametrize('slope, error', [('0.1', TypeError), (float('inf'), ValueError)])
def test_bad_slope(slope, error):
    with pytest.raises(error, match='slope must'):
        F.leaky_relu(np.zeros(3, np.float32), slope=slope)


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match='x.dtype.kind'):
        F.leaky_relu(np.zeros(3, np.int32))
