"""gaussian_kl_divergence: against the closed form and a Monte Carlo estimate."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'reduce': ['sum', 'mean', 'no'],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestGaussianKLDivergence(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 2e-2, 'rtol': 2e-2}

    def generate_inputs(self):
        mean = np.random.uniform(-1, 1, (3, 2)).astype(self.dtype)
        ln_var = np.random.uniform(-1, 1, (3, 2)).astype(self.dtype)
        return mean, ln_var

    def forward(self, inputs, device):
        mean, ln_var = inputs
        return F.gaussian_kl_divergence(mean, ln_var, reduce=self.reduce),

    def forward_expected(self, inputs):
        mean, ln_var = (v.astype(np.float64) for v in inputs)
        sigma = np.exp(ln_var / 2)
        # KL(N(mu, s^2) || N(0, 1)) = log(1 / s) + (s^2 + mu^2) / 2 - 1 / 2
        loss = -np.log(sigma) + (sigma ** 2 + mean ** 2) / 2 - 0.5
        if self.reduce == 'sum':
            loss = np.asarray(loss.sum())
        elif self.reduce == 'mean':
            loss = np.asarray(loss.mean())
        return loss.astype(self.dtype),


def test_matches_a_monte_carlo_estimate():
    rng = np.random.default_rng(0)
    mean, ln_var = 0.7, -0.4
    sigma = np.exp(ln_var / 2)
    z = rng.normal(mean, sigma, 400_000)
    log_q = -0.5 * (np.log(2 * np.pi) + ln_var + (z - mean) ** 2 / sigma ** 2)
    log_p = -0.5 * (np.log(2 * np.pi) + z ** 2)
    kl = F.gaussian_kl_divergence(np.array([mean]), np.array([ln_var])).array
    assert float(kl) == pytest.approx(np.mean(log_q - log_p), abs=5e-3)


def test_bad_arguments_are_rejected():
    with pytest.raises(InvalidType, match=r'mean\.shape=\(2,\).*ln_var\.shape=\(3,\)'):
        F.gaussian_kl_divergence(np.zeros(2), np.zeros(3))
    with pytest.raises(ValueError, match="reduce must be 'sum' or 'mean' or 'no'; got 'max'"):
        F.gaussian_kl_divergence(np.zeros(2), np.zeros(2), reduce='max')
