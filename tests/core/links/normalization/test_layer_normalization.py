"""The LayerNormalization link."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.links as L
from catena import testing


def _layer_norm(x, gamma, beta, eps):
    mean = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'lazy': [False, True],
}))
class TestLayerNormalization(testing.LinkTestCase):

    def setUp(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_params(self):
        gamma = np.random.uniform(0.5, 1.5, (4,)).astype(self.dtype)
        beta = np.random.uniform(-1, 1, (4,)).astype(self.dtype)
        return gamma, beta

    def create_link(self, initializers):
        gamma, beta = initializers
        link = L.LayerNormalization(None if self.lazy else 4, initial_gamma=gamma,
                                    initial_beta=beta)
        if self.lazy:
            link(np.zeros((1, 4), self.dtype))
        return link

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (3, 4)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        y = _layer_norm(x.astype(np.float64), link.gamma.array.astype(np.float64),
                        link.beta.array.astype(np.float64), link.eps)
        return y.astype(self.dtype),


def test_defaults_and_lazy_size():
    link = L.LayerNormalization()
    assert link.eps == 1e-6
    assert link.gamma.array is None
    link(np.random.uniform(-1, 1, (2, 5)).astype(np.float32))
    np.testing.assert_array_equal(link.gamma.array, np.ones(5, np.float32))
    np.testing.assert_array_equal(link.beta.array, np.zeros(5, np.float32))
    sized = L.LayerNormalization(3, eps=1e-3)
    assert sized.gamma.shape == (3,) and sized.eps == 1e-3


def test_lazy_rejects_input_without_unit_axis():
    with pytest.raises(ValueError, match='shape'):
        L.LayerNormalization()(np.zeros(3, np.float32))
