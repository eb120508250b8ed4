"""Laplace: densities and statistics against scipy.stats, sampling, KL, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest
from scipy import stats

import catena.distributions as D
from catena import gradient_check, testing


def _as(dtype, *values):
    return tuple(np.asarray(v, dtype=dtype) for v in values)


def _away(center, shape, dtype, low, high):
    """Points at distance [low, high) from center, on either side (away from the kink)."""
    side = np.where(np.random.uniform(size=shape) < 0.5, -1.0, 1.0)
    return (center + side * np.random.uniform(low, high, shape)).astype(dtype)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(), (3,), (2, 3)],
}))
class TestLaplace(testing.FunctionTestCase):

    def generate_inputs(self):
        loc = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        scale = np.random.uniform(0.5, 2, self.shape).astype(self.dtype)
        x = _away(loc, self.shape, self.dtype, 0.2, 2.0)
        q = _away(0.5, self.shape, self.dtype, 0.1, 0.4)
        return loc, scale, x, q

    def forward(self, inputs, device):
        loc, scale, x, q = inputs
        d = D.Laplace(loc, scale)
        return (d.log_prob(x), d.entropy, d.mean, d.mode, d.variance, d.stddev, d.cdf(x),
                d.icdf(q))

    def forward_expected(self, inputs):
        loc, scale, x, q = (a.astype(np.float64) for a in inputs)
        r = stats.laplace(loc, scale)
        return _as(self.dtype, r.logpdf(x), r.entropy(), r.mean(), loc, r.var(), r.std(),
                   r.cdf(x), r.ppf(q))


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestLaplaceKL(testing.FunctionTestCase):

    def generate_inputs(self):
        l1 = np.random.uniform(-1, 1, (3,)).astype(self.dtype)
        l2 = _away(l1, (3,), self.dtype, 0.2, 1.0)
        return (l1, np.random.uniform(0.5, 2, (3,)).astype(self.dtype),
                l2, np.random.uniform(0.5, 2, (3,)).astype(self.dtype))

    def forward(self, inputs, device):
        l1, s1, l2, s2 = inputs
        return D.kl_divergence(D.Laplace(l1, s1), D.Laplace(l2, s2)),

    def forward_expected(self, inputs):
        l1, s1, l2, s2 = inputs
        d = np.abs(l1 - l2)
        kl = np.log(s2 / s1) + d / s2 + s1 / s2 * np.exp(-d / s1) - 1
        return np.asarray(kl, dtype=self.dtype),


def test_kl_matches_monte_carlo():
    np.random.seed(0)
    p = D.Laplace(np.array([0.0, 1.0]), np.array([1.0, 0.5]))
    q = D.Laplace(np.array([0.5, -1.0]), np.array([2.0, 1.5]))
    x = p.sample(200000)
    log_ratio = (p.log_prob(x) - q.log_prob(x)).array
    error = log_ratio.std(axis=0) / np.sqrt(len(log_ratio))
    assert np.all(np.abs(log_ratio.mean(axis=0) - D.kl_divergence(p, q).array) < 5 * error)


def test_sample_moments_and_reproducibility():
    loc = np.array([-1.0, 2.0])
    scale = np.array([0.5, 1.5])
    d = D.Laplace(loc, scale)
    np.random.seed(5)
    s = d.sample(100000).array
    assert s.shape == (100000, 2)
    sd = np.sqrt(2) * scale
    assert np.all(np.abs(s.mean(axis=0) - loc) < 5 * sd / np.sqrt(len(s)))
    np.testing.assert_allclose(s.var(axis=0), sd ** 2, rtol=0.05)
    np.random.seed(5)
    np.testing.assert_array_equal(d.sample(100000).array, s)


def test_bad_parameters():
    with pytest.raises(ValueError, match=r'loc.*scale.*\(2, 2\).*\(2,\)'):
        D.Laplace(np.zeros((2, 2)), np.ones(2))


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape', [(), (2, 3)])
def test_standard_cdf_and_icdf_helpers(dtype, shape):
    from catena.distributions.laplace import _laplace_cdf, _laplace_icdf
    q = np.random.uniform(0.02, 0.98, shape).astype(dtype)
    y = _laplace_icdf(q)
    assert y.dtype == dtype and y.shape == shape
    np.testing.assert_allclose(y.array, stats.laplace.ppf(q), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_laplace_cdf(y).array, q, rtol=1e-5)
    x = np.asarray(_away(0.0, shape, dtype, 0.1, 2.0))
    np.testing.assert_allclose(_laplace_cdf(x).array, stats.laplace.cdf(x), rtol=1e-5)
    gy = np.random.normal(size=shape).astype(dtype)
    gradient_check.check_backward(_laplace_cdf, x, gy, dtype=np.float64, atol=1e-3, rtol=1e-3)
    gradient_check.check_backward(_laplace_icdf, q, gy, dtype=np.float64, atol=1e-3,
                                  rtol=1e-3)


def test_cdf_and_icdf_of_a_0d_float32_array():
    d = D.Laplace(np.float32(0.5), np.float32(2.0))
    q = np.asarray(0.3, np.float32)
    y = d.icdf(q)
    assert y.dtype == np.float32 and y.shape == ()
    np.testing.assert_allclose(y.array, stats.laplace.ppf(0.3, 0.5, 2.0), rtol=1e-6)
    np.testing.assert_allclose(d.cdf(y.array).array, 0.3, rtol=1e-6)
