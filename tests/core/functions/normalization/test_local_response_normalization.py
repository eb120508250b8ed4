"""local_response_normalization."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _reference(x, n, k, alpha, beta):
    """Direct loops over the channels, as the formula reads."""
    x64 = x.astype(np.float64)
    y = np.empty_like(x64)
    channels = x.shape[1]
    for c in range(channels):
        low, high = max(0, c - n // 2), min(channels, c + n // 2 + 1)
        s = (x64[:, low:high] ** 2).sum(axis=1)
        y[:, c] = x64[:, c] / (k + alpha * s) ** beta
    return y


PARAMS = [(5, 2, 1e-4, 0.75), (3, 1, 0.5, 0.75), (4, 0.5, 1.0, 1.5), (1, 1, 2.0, 0.5)]


@testing.parameterize(*(
    testing.product({
        'shape': [(2, 7, 3), (3, 4), (2, 1, 3)],
        'params': PARAMS,
        'dtype': [np.float64],
    })
    + testing.product({
        'shape': [(2, 7, 3, 2), (3, 4)],
        'params': PARAMS[:2],
        'dtype': [np.float16, np.float32],
    })
))
class TestLocalResponseNormalization(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-3, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
        elif self.dtype == np.float32:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-2}
            self.check_double_backward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        n, k, alpha, beta = self.params
        return F.local_response_normalization(inputs[0], n, k, alpha, beta),

    def forward_expected(self, inputs):
        return _reference(inputs[0], *self.params).astype(self.dtype),


def test_defaults():
    x = np.random.uniform(-3, 3, (2, 8, 2)).astype(np.float32)
    y = F.local_response_normalization(x)
    np.testing.assert_allclose(y.array, _reference(x, 5, 2, 1e-4, 0.75), rtol=1e-6)


def test_even_n_sums_n_plus_one_channels_as_chainer_does():
    x = np.ones((1, 5))
    y = F.local_response_normalization(x, n=2, k=0, alpha=1, beta=1).array
    np.testing.assert_allclose(y, [[1 / 2, 1 / 3, 1 / 3, 1 / 3, 1 / 2]])


def test_bad_arguments():
    with pytest.raises(InvalidType, match=r'x\.ndim >= 2'):
        F.local_response_normalization(np.zeros(3))
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        F.local_response_normalization(np.zeros((2, 3), np.int32))
    with pytest.raises(ValueError, match='n must be a positive int'):
        F.local_response_normalization(np.zeros((2, 3)), n=0)
