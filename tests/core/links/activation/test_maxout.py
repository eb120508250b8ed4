"""The Maxout link."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.links as L
from catena import testing


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'nobias': [False, True],
}))
class TestMaxout(testing.LinkTestCase):
    dodge_nondifferentiable = True

    def generate_params(self):
        w = np.random.uniform(-1, 1, (2, 3, 4)).astype(self.dtype)
        b = None if self.nobias else np.random.uniform(-1, 1, (2, 3)).astype(self.dtype)
        return w, b

    def create_link(self, initializers):
        w, b = initializers
        return L.Maxout(4, 2, 3, initialW=w, initial_bias=b)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (5, 4)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        w = link.linear.W.array.reshape(2, 3, 4)
        y = np.einsum('bi,opi->bop', x, w)
        if not self.nobias:
            y = y + link.linear.b.array.reshape(2, 3)
        return y.max(axis=2).astype(self.dtype),


def test_shapes_and_callable_initializer():
    seen = []

    def init(array):
        seen.append(array.shape)
        array[...] = np.arange(array.size).reshape(array.shape)

    link = L.Maxout(4, 2, 3, initialW=init)
    assert seen == [(2, 3, 4)]
    assert link.linear.W.shape == (6, 4)
    np.testing.assert_array_equal(link.linear.W.array.ravel(), np.arange(24))
    np.testing.assert_array_equal(link.linear.b.array, np.zeros(6))
    assert link.out_size == 2 and link.pool_size == 3
    y = link(np.ones((1, 4), np.float32))
    # Unit r of the linear layer sums row r of arange(24).reshape(6, 4): 16 r + 6.
    np.testing.assert_allclose(y.array, [[38, 86]])


def test_lazy_in_size():
    link = L.Maxout(None, 2, 2)
    y = link(np.random.uniform(-1, 1, (3, 5)).astype(np.float32))
    assert y.shape == (3, 2)
    assert link.linear.W.shape == (4, 5)


def test_bad_shapes():
    with pytest.raises(ValueError, match='initialW'):
        L.Maxout(4, 2, 3, initialW=np.zeros((6, 4), np.float32))
    with pytest.raises(ValueError, match='initial_bias'):
        L.Maxout(4, 2, 3, initial_bias=np.zeros(6, np.float32))
    with pytest.raises(ValueError, match='pool_size'):
        L.Maxout(4, 2, 0)
