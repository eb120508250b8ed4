"""Poisson: probabilities and statistics against scipy.stats, sampling, KL, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest
from scipy import stats

import catena
import catena.functions as F
from catena import testing
from catena.distributions.kl_divergence import cross_entropy, kl_divergence
from catena.distributions.poisson import Poisson


def _as(dtype, *values):
    return tuple(np.asarray(v, dtype=dtype) for v in values)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(), (3,), (2, 3)],
    # Small rates sum the entropy's series; large ones take its asymptotic expansion.
    'lam_range': [(0.1, 8.0), (80.0, 300.0)],
}))
class TestPoisson(testing.FunctionTestCase):

    def generate_inputs(self):
        lam = np.random.uniform(*self.lam_range, self.shape).astype(self.dtype)
        x = np.asarray(np.random.poisson(lam), dtype=np.int64)  # not differentiated
        return lam, x

    def forward(self, inputs, device):
        lam, x = inputs
        d = Poisson(lam)
        return d.log_prob(x), d.prob(x), d.entropy, d.mean, d.variance, d.stddev

    def forward_expected(self, inputs):
        lam, x = inputs
        r = stats.poisson(lam.astype(np.float64))
        return _as(self.dtype, r.logpmf(x), r.pmf(x), r.entropy(), r.mean(), r.var(), r.std())


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestPoissonKL(testing.FunctionTestCase):

    def generate_inputs(self):
        return tuple(np.random.uniform(0.5, 5, (3,)).astype(self.dtype) for _ in range(2))

    def forward(self, inputs, device):
        lam1, lam2 = inputs
        return kl_divergence(Poisson(lam1), Poisson(lam2)),

    def forward_expected(self, inputs):
        lam1, lam2 = (v.astype(np.float64) for v in inputs)
        k = np.arange(0, 200)[:, None]
        pmf1 = stats.poisson.pmf(k, lam1)
        kl = (pmf1 * (stats.poisson.logpmf(k, lam1) - stats.poisson.logpmf(k, lam2))).sum(0)
        return np.asarray(kl, dtype=self.dtype),


def test_entropy_across_the_switch_to_the_expansion():
    lam = np.array([1e-3, 0.5, 20.0, 99.0, 100.0, 101.0, 1000.0])
    np.testing.assert_allclose(Poisson(lam).entropy.array, stats.poisson.entropy(lam),
                               rtol=1e-8)
    np.testing.assert_allclose(Poisson(lam.astype(np.float32)).entropy.array,
                               stats.poisson.entropy(lam), rtol=1e-6)


def test_kl_matches_monte_carlo():
    np.random.seed(0)
    p = Poisson(np.array([0.5, 3.0, 20.0]))
    q = Poisson(np.array([2.0, 1.0, 25.0]))
    x = p.sample(200000)
    log_ratio = (p.log_prob(x) - q.log_prob(x)).array
    kl = kl_divergence(p, q).array
    error = log_ratio.std(axis=0) / np.sqrt(len(log_ratio))
    assert np.all(np.abs(log_ratio.mean(axis=0) - kl) < 5 * error)
    np.testing.assert_allclose(cross_entropy(p, q).array, p.entropy.array + kl)
    np.testing.assert_allclose(kl_divergence(p, p).array, 0.0, atol=1e-12)


def test_sample_moments_and_reproducibility():
    lam = np.array([0.3, 4.0, 50.0], dtype=np.float32)
    d = Poisson(lam)
    np.random.seed(6)
    s = d.sample(100000)
    assert s.shape == (100000, 3) and s.dtype == np.float32 and not s.requires_grad
    s = s.array
    assert np.all(s >= 0) and np.all(s == np.floor(s))
    assert np.all(np.abs(s.mean(axis=0) - lam) < 5 * np.sqrt(lam / len(s)))
    np.testing.assert_allclose(s.var(axis=0), lam, rtol=0.05)
    np.random.seed(6)
    np.testing.assert_array_equal(d.sample(100000).array, s)


def test_log_prob_outside_the_support():
    d = Poisson(np.array([2.0, 2.0, 2.0]))
    x = np.array([-1.0, 1.5, 0.0])
    np.testing.assert_allclose(d.log_prob(x).array, stats.poisson.logpmf(x, 2.0))


def test_gradient_of_log_prob():
    lam = catena.Variable(np.array([0.5, 3.0]))
    x = np.array([2, 0])
    F.sum(Poisson(lam).log_prob(x)).backward()
    np.testing.assert_allclose(lam.grad, x / lam.array - 1)


def test_properties():
    d = Poisson(np.array([0.5, 3.7]))
    assert d.batch_shape == (2,) and d.event_shape == ()
    assert d.support == 'non negative integer'
    assert set(d.params) == {'lam'}
    np.testing.assert_array_equal(d.mode.array, [0.0, 3.0])


def test_bad_parameters():
    with pytest.raises(TypeError, match='lam'):
        Poisson(np.array([1, 2]))
