"""Beta: densities and statistics against scipy.stats, sampling, KL, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest
from scipy import special, stats

import catena
import catena.functions as F
from catena import testing
from catena.distributions.beta import Beta
from catena.distributions.kl_divergence import cross_entropy, kl_divergence


def _as(dtype, *values):
    return tuple(np.asarray(v, dtype=dtype) for v in values)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(), (3,), (2, 3)],
}))
class TestBeta(testing.FunctionTestCase):

    def generate_inputs(self):
        a = np.random.uniform(0.5, 3, self.shape).astype(self.dtype)
        b = np.random.uniform(0.5, 3, self.shape).astype(self.dtype)
        x = np.random.uniform(0.1, 0.9, self.shape).astype(self.dtype)
        return a, b, x

    def forward(self, inputs, device):
        a, b, x = inputs
        d = Beta(a, b)
        return d.log_prob(x), d.prob(x), d.entropy, d.mean, d.variance, d.stddev

    def forward_expected(self, inputs):
        a, b, x = (v.astype(np.float64) for v in inputs)
        r = stats.beta(a, b)
        return _as(self.dtype, r.logpdf(x), r.pdf(x), r.entropy(), r.mean(), r.var(), r.std())


def _kl_beta(a1, b1, a2, b2):
    # KL = E_p[log p - log q], with E_p[log x] = psi(a1) - psi(a1 + b1) and likewise for 1 - x.
    e_log_x = special.digamma(a1) - special.digamma(a1 + b1)
    e_log_1mx = special.digamma(b1) - special.digamma(a1 + b1)
    return (special.betaln(a2, b2) - special.betaln(a1, b1)
            + (a1 - a2) * e_log_x + (b1 - b2) * e_log_1mx)


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestBetaKL(testing.FunctionTestCase):

    def generate_inputs(self):
        return tuple(np.random.uniform(0.5, 3, (3,)).astype(self.dtype) for _ in range(4))

    def forward(self, inputs, device):
        a1, b1, a2, b2 = inputs
        return kl_divergence(Beta(a1, b1), Beta(a2, b2)),

    def forward_expected(self, inputs):
        a1, b1, a2, b2 = (v.astype(np.float64) for v in inputs)
        return np.asarray(_kl_beta(a1, b1, a2, b2), dtype=self.dtype),


def test_kl_matches_monte_carlo():
    np.random.seed(0)
    p = Beta(np.array([0.8, 2.0, 5.0]), np.array([1.5, 2.0, 1.0]))
    q = Beta(np.array([2.0, 0.7, 4.0]), np.array([1.0, 3.0, 2.0]))
    x = p.sample(200000)
    log_ratio = (p.log_prob(x) - q.log_prob(x)).array
    kl = kl_divergence(p, q).array
    error = log_ratio.std(axis=0) / np.sqrt(len(log_ratio))
    assert np.all(np.abs(log_ratio.mean(axis=0) - kl) < 5 * error)
    np.testing.assert_allclose(cross_entropy(p, q).array, p.entropy.array + kl)
    np.testing.assert_allclose(kl_divergence(p, p).array, 0.0, atol=1e-12)


def test_sample_moments_and_reproducibility():
    a = np.array([0.5, 2.0, 6.0], dtype=np.float32)
    b = np.array([0.5, 5.0, 1.5], dtype=np.float32)
    d = Beta(a, b)
    np.random.seed(1)
    s = d.sample(100000)
    assert s.shape == (100000, 3) and s.dtype == np.float32 and not s.requires_grad
    s = s.array
    assert np.all((s >= 0) & (s <= 1))
    mean, var = stats.beta.mean(a, b), stats.beta.var(a, b)
    assert np.all(np.abs(s.mean(axis=0) - mean) < 5 * np.sqrt(var / len(s)))
    np.testing.assert_allclose(s.var(axis=0), var, rtol=0.03)
    np.random.seed(1)
    np.testing.assert_array_equal(d.sample(100000).array, s)


def test_log_prob_outside_and_on_the_boundary():
    a = np.array([2.0, 1.0, 0.5, 2.0])
    b = np.array([1.0, 1.0, 1.0, 3.0])
    d = Beta(a, b)
    for x in ([0.0] * 4, [1.0] * 4, [-0.5, 1.5, 2.0, -1.0]):
        with np.errstate(divide='ignore'):
            expected = stats.beta.logpdf(x, a, b)
        np.testing.assert_allclose(d.log_prob(np.array(x)).array, expected)


def test_log_prob_broadcasts_over_sample_axes_and_accepts_other_dtypes():
    d = Beta(np.array([2.0, 3.0], np.float32), np.array([1.5, 0.5], np.float32))
    x = np.array([[0.2, 0.7], [0.5, 0.9], [0.3, 0.1]])
    lp = d.log_prob(x)
    assert lp.shape == (3, 2) and lp.dtype == np.float32
    np.testing.assert_allclose(lp.array, stats.beta.logpdf(x, [2.0, 3.0], [1.5, 0.5]),
                               rtol=1e-5)


def test_gradient_of_log_prob():
    a = catena.Variable(np.array([2.0, 0.7]))
    b = catena.Variable(np.array([3.0, 1.5]))
    x = np.array([0.4, 0.8])
    F.sum(Beta(a, b).log_prob(x)).backward()
    # d/da log p = log x - psi(a) + psi(a + b); likewise for b with log(1 - x).
    psi_ab = special.digamma(a.array + b.array)
    np.testing.assert_allclose(a.grad, np.log(x) - special.digamma(a.array) + psi_ab)
    np.testing.assert_allclose(b.grad, np.log1p(-x) - special.digamma(b.array) + psi_ab)


def test_properties():
    a, b = np.array([[2.0, 3.0]]), np.array([[4.0, 0.5]])
    d = Beta(a, b)
    assert d.batch_shape == (1, 2) and d.event_shape == ()
    assert d.support == '[0, 1]'
    assert set(d.params) == {'a', 'b'} and d.params['a'] is d.a
    np.testing.assert_allclose(d.mode.array, [[0.25, np.nan]])
    assert 'Beta' in repr(d)


def test_bad_parameters():
    with pytest.raises(ValueError, match=r'a.*b.*\(3,\).*\(2,\)'):
        Beta(np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match='dtype'):
        Beta(np.ones(3, np.float32), np.ones(3))
    with pytest.raises(TypeError, match='b'):
        Beta(np.ones(3), np.ones(3, np.int32))
    with pytest.raises(ValueError, match='number of samples'):
        Beta(np.ones(3), np.ones(3)).sample_n(-2)
