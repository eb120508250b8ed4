"""layer_normalization."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*(testing.product({
    'shape': [(3, 5), (1, 4), (4, 1)],
    'dtype': [np.float16, np.float32, np.float64],
    'eps': [1e-5],
}) + [{'shape': (3, 5), 'dtype': np.float64, 'eps': 0.5}]))
class TestLayerNormalization(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
        elif self.dtype == np.float32:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-2}
            self.check_double_backward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        gamma = np.random.uniform(0.5, 1.5, self.shape[1]).astype(self.dtype)
        beta = np.random.uniform(-1, 1, self.shape[1]).astype(self.dtype)
        return x, gamma, beta

    def forward(self, inputs, device):
        return F.layer_normalization(*inputs, eps=self.eps),

    def forward_expected(self, inputs):
        x, gamma, beta = (a.astype(np.float64) for a in inputs)
        mean = x.mean(axis=1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
        y = (x - mean) / np.sqrt(var + self.eps) * gamma[None, :] + beta[None, :]
        return y.astype(self.dtype),


def test_rows_are_normalized_independently():
    x = np.random.uniform(-1, 1, (4, 6)) * np.arange(1, 5)[:, None] + np.arange(4)[:, None]
    y = F.layer_normalization(x, np.ones(6), np.zeros(6), eps=0).array
    np.testing.assert_allclose(y.mean(axis=1), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=1), 1)


def test_bad_shapes():
    with pytest.raises(InvalidType, match=r'x\.ndim == 2'):
        F.layer_normalization(np.zeros((2, 3, 4)), np.ones(3), np.zeros(3))
    with pytest.raises(InvalidType, match=r'x\.shape\[1\] == gamma\.shape\[0\]') as info:
        F.layer_normalization(np.zeros((2, 3)), np.ones(4), np.zeros(4))
    assert '3 != 4' in str(info.value)
    with pytest.raises(InvalidType, match=r'gamma\.shape == beta\.shape'):
        F.layer_normalization(np.zeros((2, 3)), np.ones(3), np.zeros(2))
