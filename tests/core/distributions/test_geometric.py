"""Geometric: probabilities and statistics against scipy.stats, sampling, KL, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest
from scipy import stats

import catena
import catena.functions as F
from catena import testing
from catena.distributions.geometric import Geometric
from catena.distributions.kl_divergence import cross_entropy, kl_divergence


def _as(dtype, *values):
    return tuple(np.asarray(v, dtype=dtype) for v in values)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(), (3,), (2, 3)],
}))
class TestGeometric(testing.FunctionTestCase):

    def generate_inputs(self):
        p = np.random.uniform(0.1, 0.9, self.shape).astype(self.dtype)
        x = np.random.randint(1, 6, self.shape).astype(np.int32)  # not differentiated
        y = np.random.uniform(0.5, 6, self.shape).astype(self.dtype)
        return p, x, y

    def forward(self, inputs, device):
        p, x, y = inputs
        d = Geometric(p)
        return (d.log_prob(x), d.prob(x), d.entropy, d.mean, d.variance, d.stddev,
                d.cdf(y.array))

    def forward_expected(self, inputs):
        p, x, y = inputs
        r = stats.geom(p.astype(np.float64))
        return _as(self.dtype, r.logpmf(x), r.pmf(x), r.entropy(), r.mean(), r.var(), r.std(),
                   r.cdf(y))


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestGeometricKL(testing.FunctionTestCase):

    def generate_inputs(self):
        return tuple(np.random.uniform(0.1, 0.9, (3,)).astype(self.dtype) for _ in range(2))

    def forward(self, inputs, device):
        p1, p2 = inputs
        return kl_divergence(Geometric(p1), Geometric(p2)),

    def forward_expected(self, inputs):
        p1, p2 = (v.astype(np.float64) for v in inputs)
        # Summed over the support, far enough that the tail is negligible.
        k = np.arange(1, 2000)[:, None]
        pmf1 = stats.geom.pmf(k, p1)
        kl = (pmf1 * (stats.geom.logpmf(k, p1) - stats.geom.logpmf(k, p2))).sum(axis=0)
        return np.asarray(kl, dtype=self.dtype),


def test_kl_matches_monte_carlo():
    np.random.seed(0)
    p = Geometric(np.array([0.2, 0.5, 0.9]))
    q = Geometric(np.array([0.6, 0.1, 0.5]))
    x = p.sample(200000)
    log_ratio = (p.log_prob(x) - q.log_prob(x)).array
    kl = kl_divergence(p, q).array
    error = log_ratio.std(axis=0) / np.sqrt(len(log_ratio))
    assert np.all(np.abs(log_ratio.mean(axis=0) - kl) < 5 * error)
    np.testing.assert_allclose(cross_entropy(p, q).array, p.entropy.array + kl)
    np.testing.assert_allclose(kl_divergence(p, p).array, 0.0, atol=1e-12)


def test_sample_moments_and_reproducibility():
    p = np.array([0.1, 0.5, 0.95], dtype=np.float32)
    d = Geometric(p)
    np.random.seed(5)
    s = d.sample(100000)
    assert s.shape == (100000, 3) and s.dtype == np.float32 and not s.requires_grad
    s = s.array
    assert np.all(s >= 1) and np.all(s == np.floor(s))
    mean, var = 1 / p, (1 - p) / p ** 2
    assert np.all(np.abs(s.mean(axis=0) - mean) < 5 * np.sqrt(var / len(s)))
    np.testing.assert_allclose(s.var(axis=0), var, rtol=0.05)
    np.random.seed(5)
    np.testing.assert_array_equal(d.sample(100000).array, s)


def test_log_prob_outside_the_support():
    d = Geometric(np.array([0.3, 0.3, 0.3, 1.0]))
    x = np.array([0.0, 2.5, -1.0, 1.0])
    np.testing.assert_allclose(d.log_prob(x).array, stats.geom.logpmf(x, 0.3 + 0.7 * (x == 1)))
    np.testing.assert_allclose(d.cdf(np.array([-1.0, 0.5, 1.0, 7.0])).array, [0, 0, 0.3, 1])


def test_gradient_of_log_prob():
    p = catena.Variable(np.array([0.2, 0.6]))
    x = np.array([4, 1])
    F.sum(Geometric(p).log_prob(x)).backward()
    np.testing.assert_allclose(p.grad, 1 / p.array - (x - 1) / (1 - p.array))


def test_properties():
    d = Geometric(np.array([0.25, 1.0]))
    assert d.batch_shape == (2,) and d.event_shape == ()
    assert d.support == 'positive integer'
    assert set(d.params) == {'p'}
    np.testing.assert_array_equal(d.mode.array, [1.0, 1.0])
    np.testing.assert_allclose(d.entropy.array, [stats.geom.entropy(0.25), 0.0])


def test_bad_parameters():
    with pytest.raises(TypeError, match='p'):
        Geometric(np.array([1, 2]))
    with pytest.raises(TypeError, match='p'):
        Geometric(0.5)
