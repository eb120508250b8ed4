"""Gumbel: densities and statistics against scipy.stats, sampling, KL, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest
from scipy import special, stats

import catena.distributions as D
from catena import testing


def _as(dtype, *values):
    return tuple(np.asarray(v, dtype=dtype) for v in values)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(), (3,), (2, 3)],
}))
class TestGumbel(testing.FunctionTestCase):

    def generate_inputs(self):
        loc = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        scale = np.random.uniform(0.5, 2, self.shape).astype(self.dtype)
        x = np.random.uniform(-1, 2, self.shape).astype(self.dtype)
        q = np.random.uniform(0.1, 0.9, self.shape).astype(self.dtype)
        return loc, scale, x, q

    def forward(self, inputs, device):
        loc, scale, x, q = inputs
        d = D.Gumbel(loc, scale)
        return (d.log_prob(x), d.entropy, d.mean, d.mode, d.variance, d.stddev, d.cdf(x),
                d.log_cdf(x), d.icdf(q))

    def forward_expected(self, inputs):
        loc, scale, x, q = (a.astype(np.float64) for a in inputs)
        r = stats.gumbel_r(loc, scale)
        return _as(self.dtype, r.logpdf(x), r.entropy(), r.mean(), loc, r.var(), r.std(),
                   r.cdf(x), r.logcdf(x), r.ppf(q))


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestGumbelKL(testing.FunctionTestCase):

    def generate_inputs(self):
        def params():
            return (np.random.uniform(-1, 1, (3,)).astype(self.dtype),
                    np.random.uniform(0.5, 2, (3,)).astype(self.dtype))
        return params() + params()

    def forward(self, inputs, device):
        l1, s1, l2, s2 = inputs
        return D.kl_divergence(D.Gumbel(l1, s1), D.Gumbel(l2, s2)),

    def forward_expected(self, inputs):
        l1, s1, l2, s2 = (a.astype(np.float64) for a in inputs)
        # E_p[log p] = -log s1 - gamma - 1; E_p[log q] by E[exp(-t G)] = Gamma(1 + t).
        gamma = np.euler_gamma
        e_log_q = (-np.log(s2) - (l1 + gamma * s1 - l2) / s2
                   - np.exp((l2 - l1) / s2) * special.gamma(1 + s1 / s2))
        kl = -np.log(s1) - gamma - 1 - e_log_q
        return np.asarray(kl, dtype=self.dtype),


def test_kl_matches_monte_carlo():
    np.random.seed(0)
    p = D.Gumbel(np.array([0.0, 1.0]), np.array([1.0, 0.5]))
    q = D.Gumbel(np.array([0.5, -1.0]), np.array([2.0, 1.5]))
    x = p.sample(200000)
    log_ratio = (p.log_prob(x) - q.log_prob(x)).array
    error = log_ratio.std(axis=0) / np.sqrt(len(log_ratio))
    assert np.all(np.abs(log_ratio.mean(axis=0) - D.kl_divergence(p, q).array) < 5 * error)
    np.testing.assert_allclose(D.kl_divergence(p, p).array, 0.0, atol=1e-12)


def test_sample_moments_and_reproducibility():
    loc = np.array([-1.0, 2.0])
    scale = np.array([0.5, 1.5])
    d = D.Gumbel(loc, scale)
    np.random.seed(6)
    s = d.sample(100000).array
    mean = loc + np.euler_gamma * scale
    var = np.pi ** 2 / 6 * scale ** 2
    assert np.all(np.abs(s.mean(axis=0) - mean) < 5 * np.sqrt(var / len(s)))
    np.testing.assert_allclose(s.var(axis=0), var, rtol=0.05)
    np.random.seed(6)
    np.testing.assert_array_equal(d.sample(100000).array, s)


def test_bad_parameters():
    with pytest.raises(ValueError, match=r'loc.*scale.*\(3,\).*\(\)'):
        D.Gumbel(np.zeros(3), np.float64(1.0))
