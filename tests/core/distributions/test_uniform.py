"""Uniform: densities and statistics against scipy.stats, sampling, KL, errors."""

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
    'by': ['ends', 'width'],
}))
class TestUniform(testing.FunctionTestCase):

    def generate_inputs(self):
        low = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        width = np.random.uniform(1, 2, self.shape).astype(self.dtype)
        x = (low + width * np.random.uniform(0.1, 0.9, self.shape)).astype(self.dtype)
        q = np.random.uniform(0.1, 0.9, self.shape).astype(self.dtype)
        return low, width, x, q

    def forward(self, inputs, device):
        low, width, x, q = inputs
        if self.by == 'ends':
            d = D.Uniform(low=low, high=low + width)
        else:
            d = D.Uniform(loc=low, scale=width)
        return (d.log_prob(x), d.entropy, d.mean, d.variance, d.stddev, d.cdf(x),
                d.icdf(q), d.high)

    def forward_expected(self, inputs):
        low, width, x, q = (a.astype(np.float64) for a in inputs)
        r = stats.uniform(low, width)
        return _as(self.dtype, r.logpdf(x), r.entropy(), r.mean(), r.var(), r.std(),
                   r.cdf(x), r.ppf(q), low + width)


def test_outside_the_support():
    d = D.Uniform(np.array([0.0, 0.0]), np.array([1.0, 2.0]))
    x = np.array([-0.5, 2.5])
    assert np.all(d.log_prob(x).array == -np.inf)
    np.testing.assert_array_equal(d.cdf(x).array, [0.0, 1.0])
    np.testing.assert_allclose(d.log_prob(np.array([0.0, 2.0])).array, [0.0, -np.log(2)])


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestUniformKL(testing.FunctionTestCase):

    def generate_inputs(self):
        low1 = np.random.uniform(-1, 1, (3,)).astype(self.dtype)
        width1 = np.random.uniform(0.5, 1, (3,)).astype(self.dtype)
        low2 = (low1 - np.random.uniform(0.1, 1, (3,))).astype(self.dtype)
        width2 = (low1 - low2 + width1 + np.random.uniform(0.1, 1, (3,))).astype(self.dtype)
        return low1, width1, low2, width2

    def forward(self, inputs, device):
        low1, width1, low2, width2 = inputs
        return D.kl_divergence(D.Uniform(loc=low1, scale=width1),
                               D.Uniform(loc=low2, scale=width2)),

    def forward_expected(self, inputs):
        _, width1, _, width2 = inputs
        return np.asarray(np.log(width2 / width1), dtype=self.dtype),


def test_kl_is_infinite_unless_the_support_is_contained():
    p = D.Uniform(np.array([0.0, 0.0, 0.0]), np.array([1.0, 1.0, 1.0]))
    q = D.Uniform(np.array([-1.0, 0.5, 0.0]), np.array([2.0, 2.0, 0.5]))
    kl = D.kl_divergence(p, q).array
    np.testing.assert_allclose(kl[0], np.log(3.0))
    assert kl[1] == np.inf and kl[2] == np.inf


def test_sample_moments_and_reproducibility():
    d = D.Uniform(np.array([-1.0, 2.0], np.float32), np.array([1.0, 5.0], np.float32))
    np.random.seed(9)
    s = d.sample(100000).array
    assert s.dtype == np.float32 and np.all((s >= [-1, 2]) & (s <= [1, 5]))
    var = np.array([4.0, 9.0]) / 12
    assert np.all(np.abs(s.mean(axis=0) - [0.0, 3.5]) < 5 * np.sqrt(var / len(s)))
    np.testing.assert_allclose(s.var(axis=0), var, rtol=0.05)
    np.random.seed(9)
    np.testing.assert_array_equal(d.sample(100000).array, s)
    assert set(d.params) == {'low', 'high'} and d.support == '[low, high]'


def test_bad_parameters():
    with pytest.raises(ValueError, match=r'low.*high.*\(2,\).*\(3,\)'):
        D.Uniform(np.zeros(2), np.ones(3))
    with pytest.raises(ValueError, match=r'loc.*scale.*\(2,\).*\(3,\)'):
        D.Uniform(loc=np.zeros(2), scale=np.ones(3))
    with pytest.raises(ValueError, match='low.*high.*loc.*scale'):
        D.Uniform(low=np.zeros(2), scale=np.ones(2))
    with pytest.raises(ValueError, match='low.*high.*loc.*scale'):
        D.Uniform(low=np.zeros(2))
