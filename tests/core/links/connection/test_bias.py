"""Bias link: learned or given bias, every device, errors."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
from catena import testing
from catena.links.connection.bias import Bias


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'axis_shape': [(1, (3,)), (1, (3, 2)), (0, (2,)), (2, (2,))],
}))
class TestBias(testing.LinkTestCase):

    x_shape = (2, 3, 2)

    def generate_params(self):
        return np.random.uniform(-1, 1, self.axis_shape[1]).astype(self.dtype),

    def create_link(self, initializers):
        b, = initializers
        with catena.using_config('dtype', self.dtype):
            link = Bias(self.axis_shape[0], self.axis_shape[1])
        link.b.array[...] = b
        return link

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.x_shape).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        axis, shape = self.axis_shape
        b = link.b.array.reshape((1,) * axis + shape + (1,) * (3 - axis - len(shape)))
        return (x + b).astype(self.dtype),


def test_learned_bias_starts_at_zero():
    link = Bias(shape=(3,))
    np.testing.assert_array_equal(link.b.array, np.zeros(3, np.float32))
    assert [name for name, _ in link.namedparams()] == ['/b']


def test_given_bias():
    link = Bias(axis=1)
    assert list(link.params()) == []
    x = np.zeros((2, 3), np.float32)
    y = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(link(x, y).array, np.tile(y, (2, 1)))
    with pytest.raises(TypeError, match='2 inputs; got 1'):
        link(x)
    with pytest.raises(TypeError, match='2 inputs; got 3'):
        link(x, y, y)
    with pytest.raises(AssertionError, match='2 inputs'):
        link(x)


def test_learned_bias_takes_one_input():
    link = Bias(axis=1, shape=(3,))
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(TypeError, match='1 input; got 2'):
        link(x, x[0])
