"""Highway link: every device, the gate's bias default, custom activation."""

# ruff: noqa: NPY002

import numpy as np

import catena.functions as F
from catena import testing
from catena.links.connection.highway import Highway


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'nobias': [False, True],
}))
class TestHighway(testing.LinkTestCase):

    dodge_nondifferentiable = True

    def generate_params(self):
        u = np.random.uniform
        return (u(-1, 1, (3, 3)).astype(self.dtype), u(-1, 1, (3, 3)).astype(self.dtype),
                u(-1, 1, 3).astype(self.dtype), u(-1, 1, 3).astype(self.dtype))

    def create_link(self, initializers):
        Wh, Wt, bh, bt = initializers
        return Highway(3, self.nobias, init_Wh=Wh, init_Wt=Wt, init_bh=bh, init_bt=bt)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (4, 3)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        h = x @ link.plain.W.array.T
        if not self.nobias:
            h = h + link.plain.b.array
        t = 1 / (1 + np.exp(-(x @ link.transform.W.array.T + link.transform.b.array)))
        return (np.maximum(h, 0) * t + x * (1 - t)).astype(self.dtype),


def test_defaults_and_activation():
    link = Highway(4)
    np.testing.assert_array_equal(link.transform.b.array, np.full(4, -1.0, np.float32))
    np.testing.assert_array_equal(link.plain.b.array, np.zeros(4, np.float32))
    assert sorted(name for name, _ in link.namedparams()) == [
        '/plain/W', '/plain/b', '/transform/W', '/transform/b']
    link = Highway(2, activate=F.tanh, init_Wh=0.0, init_Wt=0.0, init_bt=0.0)
    x = np.array([[1.0, -2.0]], np.float32)
    np.testing.assert_allclose(link(x).array, x * 0.5, rtol=1e-6)
