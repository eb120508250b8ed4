"""Cauchy: densities against scipy.stats, undefined moments, sampling, errors."""

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
class TestCauchy(testing.FunctionTestCase):

    def generate_inputs(self):
        loc = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        scale = np.random.uniform(0.5, 2, self.shape).astype(self.dtype)
        x = np.random.uniform(-3, 3, self.shape).astype(self.dtype)
        q = np.random.uniform(0.1, 0.9, self.shape).astype(self.dtype)
        return loc, scale, x, q

    def forward(self, inputs, device):
        loc, scale, x, q = inputs
        d = D.Cauchy(loc, scale)
        return d.log_prob(x), d.entropy, d.cdf(x), d.icdf(q), d.prob(x)

    def forward_expected(self, inputs):
        loc, scale, x, q = (a.astype(np.float64) for a in inputs)
        r = stats.cauchy(loc, scale)
        return _as(self.dtype, r.logpdf(x), r.entropy(), r.cdf(x), r.ppf(q), r.pdf(x))


def test_mean_and_variance_are_undefined():
    d = D.Cauchy(np.zeros(2, np.float32), np.ones(2, np.float32))
    with pytest.warns(RuntimeWarning, match='mean'):
        mean = d.mean
    with pytest.warns(RuntimeWarning, match='variance'):
        variance = d.variance
    for value in (mean, variance):
        assert value.shape == (2,) and value.dtype == np.float32
        assert np.all(np.isnan(value.array))
    assert d.mode.array.tolist() == [0.0, 0.0] and d.support == 'real'


def test_sample_quantiles_and_reproducibility():
    loc = np.array([-1.0, 2.0])
    scale = np.array([0.5, 1.5])
    d = D.Cauchy(loc, scale)
    np.random.seed(8)
    s = d.sample(100000).array
    assert s.shape == (100000, 2)
    # The median and the quartiles (the moments do not exist).
    np.testing.assert_allclose(np.median(s, axis=0), loc, atol=0.03 * scale.max())
    np.testing.assert_allclose(np.quantile(s, 0.75, axis=0) - np.quantile(s, 0.25, axis=0),
                               2 * scale, rtol=0.03)
    np.random.seed(8)
    np.testing.assert_array_equal(d.sample(100000).array, s)


def test_no_kl_is_registered():
    d = D.Cauchy(np.zeros(2), np.ones(2))
    with pytest.raises(NotImplementedError, match='Cauchy'):
        D.kl_divergence(d, d)


def test_bad_parameters():
    with pytest.raises(ValueError, match='loc.*scale.*float32.*float64'):
        D.Cauchy(np.zeros(3, np.float32), np.ones(3))
