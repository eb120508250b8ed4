"""Scale link: learned or given scale, optional bias, every device, errors."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
from catena import testing
from catena.links.connection.scale import Scale


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'axis_shape': [(1, (3,)), (1, (3, 2)), (0, (2,))],
    'bias_term': [False, True],
}))
class TestScale(testing.LinkTestCase):

    x_shape = (2, 3, 2)

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_backward_options = {'atol': 5e-3, 'rtol': 5e-2}

    def generate_params(self):
        shape = self.axis_shape[1]
        return (np.random.uniform(0.5, 1.5, shape).astype(self.dtype),
                np.random.uniform(-1, 1, shape).astype(self.dtype))

    def create_link(self, initializers):
        W, b = initializers
        with catena.using_config('dtype', self.dtype):
            link = Scale(self.axis_shape[0], self.axis_shape[1], bias_term=self.bias_term)
        link.W.array[...] = W
        if self.bias_term:
            link.bias.b.array[...] = b
        return link

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.x_shape).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        axis, shape = self.axis_shape
        target = (1,) * axis + shape + (1,) * (3 - axis - len(shape))
        y = x * link.W.array.reshape(target)
        if self.bias_term:
            y = y + link.bias.b.array.reshape(target)
        return y.astype(self.dtype),


def test_defaults_and_params():
    link = Scale(W_shape=(3,), bias_term=True)
    np.testing.assert_array_equal(link.W.array, np.ones(3, np.float32))
    np.testing.assert_array_equal(link.bias.b.array, np.zeros(3, np.float32))
    assert sorted(name for name, _ in link.namedparams()) == ['/W', '/bias/b']
    assert not hasattr(Scale(W_shape=(3,)), 'bias')


def test_given_scale():
    link = Scale(axis=1)
    x = np.ones((2, 3), np.float32)
    y = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(link(x, y).array, np.tile(y, (2, 1)))
    link = Scale(axis=1, bias_term=True, bias_shape=(3,))
    link.bias.b.array[...] = 1
    np.testing.assert_array_equal(link(x, y).array, np.tile(y + 1, (2, 1)))
    with pytest.raises(TypeError, match='2 inputs'):
        link(x)
    with pytest.raises(TypeError, match='1 input'):
        Scale(W_shape=(3,))(x, y)
    with pytest.raises(AssertionError, match='1 input'):
        Scale(W_shape=(3,))(x, y)
    with pytest.raises(ValueError, match='bias_shape'):
        Scale(bias_term=True)
