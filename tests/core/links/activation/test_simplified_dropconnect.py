"""The SimplifiedDropconnect link."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.links as L
from catena import testing


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'nobias': [False, True],
}))
class TestSimplifiedDropconnectWithMask(testing.LinkTestCase):

    def setUp(self):
        self.mask = (np.random.uniform(0, 1, (2, 3, 4)) > 0.5).astype(self.dtype)

    def generate_params(self):
        return (np.random.uniform(-1, 1, (3, 4)).astype(self.dtype),
                np.random.uniform(-1, 1, (3,)).astype(self.dtype))

    def create_link(self, initializers):
        w, b = initializers
        return L.SimplifiedDropconnect(4, 3, ratio=0.25, nobias=self.nobias, initialW=w,
                                       initial_bias=b)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (2, 4)).astype(self.dtype),

    def forward(self, link, inputs, device):
        return link(inputs[0], mask=device.send(self.mask)),

    def forward_expected(self, link, inputs):
        x, = inputs
        w = link.W.array * self.mask / 0.75
        y = np.einsum('bi,boi->bo', x, w)
        if not self.nobias:
            y = y + link.b.array
        return y.astype(self.dtype),


def test_test_mode_uses_all_weights():
    link = L.SimplifiedDropconnect(4, 3)
    x = np.random.uniform(-1, 1, (2, 4)).astype(np.float32)
    y = link(x, train=False)
    np.testing.assert_allclose(y.array, x @ link.W.array.T + link.b.array, rtol=1e-5)


def test_random_drops_are_seeded_and_lazy():
    x = np.random.uniform(-1, 1, (3, 2, 2)).astype(np.float32)
    link = L.SimplifiedDropconnect(None, 5, ratio=0.5)
    assert link.W.array is None
    y_test = link(x, train=False).array  # initializes W (which draws random numbers)
    assert link.W.shape == (5, 4)
    np.random.seed(0)
    y1 = link(x).array
    np.random.seed(0)
    y2 = link(x).array
    np.testing.assert_array_equal(y1, y2)
    assert not np.allclose(y1, y_test)
    assert not np.allclose(y1, link(x).array)


def test_default_initializers():
    link = L.SimplifiedDropconnect(400, 50)
    np.testing.assert_array_equal(link.b.array, np.zeros(50, np.float32))
    # HeNormal(1 / sqrt(2)): standard deviation sqrt(2 / in_size) / sqrt(2).
    assert abs(link.W.array.std() - np.sqrt(1 / 400)) < 0.005
    assert L.SimplifiedDropconnect(4, 3, nobias=True).b is None


def test_bad_mask_shape():
    link = L.SimplifiedDropconnect(4, 3)
    with pytest.raises(Exception, match='mask'):
        link(np.zeros((2, 4), np.float32), mask=np.ones((3, 3), np.float32))
