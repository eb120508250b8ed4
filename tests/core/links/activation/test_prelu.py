"""The PReLU link."""

# ruff: noqa: NPY002

import numpy as np

import catena
import catena.links as L
from catena import testing


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'w_shape': [(), (3,), (3, 2)],
}))
class TestPReLU(testing.LinkTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        if self.dtype == np.float16:
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_params(self):
        return np.random.uniform(-1, 1, self.w_shape).astype(self.dtype),

    def create_link(self, initializers):
        # A 0-d array carries no dtype to the initializer: give it explicitly.
        return L.PReLU(self.w_shape, init=catena.initializers.Constant(initializers[0],
                                                                         self.dtype))

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, (4, 3, 2)).astype(self.dtype)
        x[np.abs(x) < 0.05] = 0.5
        return x,

    def forward_expected(self, link, inputs):
        x, = inputs
        w = link.W.array.reshape(link.W.shape + (1,) * (x.ndim - 1 - link.W.ndim))
        return np.where(x >= 0, x, w * x).astype(self.dtype),


def test_default_slope():
    link = L.PReLU()
    assert link.W.shape == ()
    np.testing.assert_array_equal(link.W.array, np.float32(0.25))
    y = link(np.array([[-2., 3.]], np.float32))
    np.testing.assert_allclose(y.array, [[-0.5, 3.]])
