"""Exponential: densities and statistics against scipy.stats, sampling, KL, errors."""

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
class TestExponential(testing.FunctionTestCase):

    def generate_inputs(self):
        lam = np.random.uniform(0.5, 2, self.shape).astype(self.dtype)
        x = np.random.uniform(0.1, 3, self.shape).astype(self.dtype)
        q = np.random.uniform(0.1, 0.9, self.shape).astype(self.dtype)
        return lam, x, q

    def forward(self, inputs, device):
        lam, x, q = inputs
        d = D.Exponential(lam)
        return (d.log_prob(x), d.entropy, d.mean, d.variance, d.stddev, d.cdf(x),
                d.survival_function(x), d.icdf(q))

    def forward_expected(self, inputs):
        lam, x, q = (a.astype(np.float64) for a in inputs)
        r = stats.expon(scale=1 / lam)
        return _as(self.dtype, r.logpdf(x), r.entropy(), r.mean(), r.var(), r.std(),
                   r.cdf(x), r.sf(x), r.ppf(q))


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestExponentialKL(testing.FunctionTestCase):

    def generate_inputs(self):
        return (np.random.uniform(0.5, 2, (3,)).astype(self.dtype),
                np.random.uniform(0.5, 2, (3,)).astype(self.dtype))

    def forward(self, inputs, device):
        lam1, lam2 = inputs
        return D.kl_divergence(D.Exponential(lam1), D.Exponential(lam2)),

    def forward_expected(self, inputs):
        lam1, lam2 = inputs
        return np.asarray(np.log(lam1 / lam2) + lam2 / lam1 - 1, dtype=self.dtype),


def test_outside_the_support():
    d = D.Exponential(np.array([1.0, 2.0]))
    x = np.array([-0.5, -1.0])
    assert np.all(d.log_prob(x).array == -np.inf)
    np.testing.assert_array_equal(d.cdf(x).array, [0.0, 0.0])
    np.testing.assert_array_equal(d.mode.array, [0.0, 0.0])
    assert d.support == 'positive'


def test_kl_matches_monte_carlo():
    np.random.seed(0)
    p = D.Exponential(np.array([1.0, 3.0]))
    q = D.Exponential(np.array([0.5, 1.0]))
    x = p.sample(200000)
    log_ratio = (p.log_prob(x) - q.log_prob(x)).array
    error = log_ratio.std(axis=0) / np.sqrt(len(log_ratio))
    assert np.all(np.abs(log_ratio.mean(axis=0) - D.kl_divergence(p, q).array) < 5 * error)


def test_sample_moments_and_reproducibility():
    lam = np.array([0.5, 2.0], dtype=np.float32)
    d = D.Exponential(lam)
    np.random.seed(2)
    s = d.sample(100000).array
    assert s.dtype == np.float32 and s.shape == (100000, 2) and np.all(s >= 0)
    assert np.all(np.abs(s.mean(axis=0) - 1 / lam) < 5 / lam / np.sqrt(len(s)))
    np.testing.assert_allclose(s.var(axis=0), 1 / lam ** 2, rtol=0.05)
    np.random.seed(2)
    np.testing.assert_array_equal(d.sample(100000).array, s)


def test_bad_parameters():
    with pytest.raises(TypeError, match='lam'):
        D.Exponential(np.array([1, 2]))


def test_icdf_of_a_0d_float32_array():
    d = D.Exponential(np.asarray(2.0, np.float32))
    y = d.icdf(np.asarray(0.3, np.float32))
    assert y.dtype == np.float32 and y.shape == ()
    np.testing.assert_allclose(y.array, stats.expon.ppf(0.3, scale=0.5), rtol=1e-6)
