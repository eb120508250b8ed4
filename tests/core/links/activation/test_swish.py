"""The Swish link."""

# ruff: noqa: NPY002

import numpy as np

import catena.links as L
from catena import testing


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'beta_shape': [(3,), (3, 2), None],
}))
class TestSwish(testing.LinkTestCase):

    def setUp(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_params(self):
        shape = (3, 2) if self.beta_shape is None else self.beta_shape
        return np.random.uniform(0.5, 1.5, shape).astype(self.dtype),

    def create_link(self, initializers):
        beta, = initializers
        link = L.Swish(self.beta_shape, beta_init=beta)
        if self.beta_shape is None:
            link(np.zeros((1, 3, 2), self.dtype))
        return link

    def generate_inputs(self):
        return np.random.uniform(-2, 2, (4, 3, 2)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x = inputs[0].astype(np.float64)
        beta = link.beta.array.astype(np.float64)
        beta = beta.reshape(beta.shape + (1,) * (x.ndim - 1 - beta.ndim))
        return (x / (1 + np.exp(-beta * x))).astype(self.dtype),


def test_scalar_default_and_lazy_shape():
    link = L.Swish((3,))
    np.testing.assert_array_equal(link.beta.array, np.ones(3, np.float32))
    lazy = L.Swish(None)
    assert lazy.beta.array is None
    lazy(np.zeros((2, 3, 4), np.float32))
    assert lazy.beta.shape == (3, 4)
    np.testing.assert_array_equal(lazy.beta.array, np.ones((3, 4), np.float32))
