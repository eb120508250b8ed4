"""The GroupNormalization link."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.links as L
from catena import testing


def _group_norm(x, groups, gamma, beta, eps):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1)
    y = (g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + eps)
    y = y.reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return gamma.reshape(shape) * y + beta.reshape(shape)


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(2, 6), (2, 6, 3)],
    'groups': [1, 2],
    'lazy': [False, True],
}))
class TestGroupNormalization(testing.LinkTestCase):

    def setUp(self):
        self.channels = self.shape[1]
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_params(self):
        gamma = np.random.uniform(0.5, 1.5, (self.channels,)).astype(self.dtype)
        beta = np.random.uniform(-1, 1, (self.channels,)).astype(self.dtype)
        return gamma, beta

    def create_link(self, initializers):
        gamma, beta = initializers
        link = L.GroupNormalization(self.groups, None if self.lazy else self.channels,
                                    initial_gamma=gamma, initial_beta=beta)
        if self.lazy:
            link(np.zeros(self.shape, self.dtype))
        return link

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        y = _group_norm(x.astype(np.float64), self.groups, link.gamma.array.astype(np.float64),
                        link.beta.array.astype(np.float64), link.eps)
        return y.astype(self.dtype),


def test_defaults():
    link = L.GroupNormalization(2)
    assert link.groups == 2 and link.eps == 1e-5 and link.gamma.array is None
    link(np.random.uniform(-1, 1, (2, 4, 3)).astype(np.float32))
    np.testing.assert_array_equal(link.gamma.array, np.ones(4, np.float32))
    np.testing.assert_array_equal(link.beta.array, np.zeros(4, np.float32))


def test_errors():
    x = np.zeros((2, 4, 3), np.float32)
    with pytest.raises(TypeError, match='groups'):
        L.GroupNormalization(0)(x)
    with pytest.raises(TypeError, match='groups'):
        L.GroupNormalization(1.5)(x)
    with pytest.raises(ValueError, match='divisible'):
        L.GroupNormalization(3)(x)
    with pytest.raises(ValueError, match='2-D'):
        L.GroupNormalization(2)(np.zeros(4, np.float32))


@pytest.mark.parametrize('dtype, expected', [
    (np.float16, np.float16), (np.float64, np.float64), (catena.mixed16, np.float32)])
def test_parameter_dtype_follows_config_at_construction(dtype, expected):
    with catena.using_config('dtype', dtype):
        link = L.GroupNormalization(2)
    initial = L.GroupNormalization(2, initial_gamma=np.ones(4, np.float64))
    link(np.zeros((1, 4, 2), np.dtype(expected)))
    assert link.gamma.dtype == expected and link.beta.dtype == expected
    initial(np.zeros((1, 4, 2), np.float32))
    assert initial.gamma.dtype == np.float32
