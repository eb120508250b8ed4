"""LogNormal: densities and statistics against scipy.stats, sampling, KL, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest
from scipy import stats

import catena.distributions as D
from catena import testing


def _as(dtype, *values):
    return tuple(np.asarray(v, dtype=dtype) for v in values)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(), (3,), (2, 3)],
}))
class TestLogNormal(testing.FunctionTestCase):

    def generate_inputs(self):
        mu = np.random.uniform(-0.5, 0.5, self.shape).astype(self.dtype)
        sigma = np.random.uniform(0.5, 1.0, self.shape).astype(self.dtype)
        x = np.random.uniform(0.5, 3, self.shape).astype(self.dtype)
        q = np.random.uniform(0.1, 0.9, self.shape).astype(self.dtype)
        return mu, sigma, x, q

    def forward(self, inputs, device):
        mu, sigma, x, q = inputs
        d = D.LogNormal(mu, sigma)
        return (d.log_prob(x), d.entropy, d.mean, d.variance, d.stddev, d.mode,
                d.cdf(x), d.icdf(q))

    def forward_expected(self, inputs):
        mu, sigma, x, q = (a.astype(np.float64) for a in inputs)
        r = stats.lognorm(s=sigma, scale=np.exp(mu))
        return _as(self.dtype, r.logpdf(x), r.entropy(), r.mean(), r.var(), r.std(),
                   np.exp(mu - sigma ** 2), r.cdf(x), r.ppf(q))


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestLogNormalKL(testing.FunctionTestCase):

    def generate_inputs(self):
        def params():
            return (np.random.uniform(-1, 1, (3,)).astype(self.dtype),
                    np.random.uniform(0.5, 2, (3,)).astype(self.dtype))
        return params() + params()

    def forward(self, inputs, device):
        m1, s1, m2, s2 = inputs
        return D.kl_divergence(D.LogNormal(m1, s1), D.LogNormal(m2, s2)),

    def forward_expected(self, inputs):
        m1, s1, m2, s2 = inputs
        kl = np.log(s2 / s1) + (s1 ** 2 + (m1 - m2) ** 2) / (2 * s2 ** 2) - 0.5
        return np.asarray(kl, dtype=self.dtype),


def test_kl_matches_monte_carlo():
    np.random.seed(0)
    p = D.LogNormal(np.array([0.0, 0.5]), np.array([0.5, 0.8]))
    q = D.LogNormal(np.array([0.3, -0.5]), np.array([1.0, 0.6]))
    x = p.sample(200000)
    log_ratio = (p.log_prob(x) - q.log_prob(x)).array
    error = log_ratio.std(axis=0) / np.sqrt(len(log_ratio))
    assert np.all(np.abs(log_ratio.mean(axis=0) - D.kl_divergence(p, q).array) < 5 * error)


def test_sample_moments_and_reproducibility():
    mu = np.array([0.0, 0.5], dtype=np.float64)
    sigma = np.array([0.25, 0.5], dtype=np.float64)
    d = D.LogNormal(mu, sigma)
    np.random.seed(1)
    s = d.sample((100000,)).array
    assert s.shape == (100000, 2) and np.all(s > 0)
    mean = np.exp(mu + sigma ** 2 / 2)
    var = (np.exp(sigma ** 2) - 1) * np.exp(2 * mu + sigma ** 2)
    assert np.all(np.abs(s.mean(axis=0) - mean) < 5 * np.sqrt(var / len(s)))
    np.testing.assert_allclose(s.var(axis=0), var, rtol=0.05)
    np.random.seed(1)
    np.testing.assert_array_equal(d.sample((100000,)).array, s)
    assert d.support == 'positive' and d.batch_shape == (2,) and d.event_shape == ()
    assert set(d.params) == {'mu', 'sigma'}


def test_bad_parameters():
    with pytest.raises(ValueError, match=r'mu.*sigma.*\(2,\).*\(3,\)'):
        D.LogNormal(np.zeros(2), np.ones(3))
    with pytest.raises(TypeError, match='sigma'):
        D.LogNormal(np.zeros(2), np.ones(2, np.int64))
