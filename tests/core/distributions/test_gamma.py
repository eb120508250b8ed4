"""Gamma: densities and statistics against scipy.stats, sampling, KL, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest
from scipy import special, stats

import catena
import catena.functions as F
from catena import testing
from catena.distributions.gamma import Gamma
from catena.distributions.kl_divergence import cross_entropy, kl_divergence


def _as(dtype, *values):
    return tuple(np.asarray(v, dtype=dtype) for v in values)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(), (3,), (2, 3)],
}))
class TestGamma(testing.FunctionTestCase):

    def generate_inputs(self):
        k = np.random.uniform(0.5, 4, self.shape).astype(self.dtype)
        theta = np.random.uniform(0.5, 2, self.shape).astype(self.dtype)
        x = np.random.uniform(0.2, 5, self.shape).astype(self.dtype)
        return k, theta, x

    def forward(self, inputs, device):
        k, theta, x = inputs
        d = Gamma(k, theta)
        return d.log_prob(x), d.prob(x), d.entropy, d.mean, d.variance, d.stddev

    def forward_expected(self, inputs):
        k, theta, x = (v.astype(np.float64) for v in inputs)
        r = stats.gamma(k, scale=theta)
        return _as(self.dtype, r.logpdf(x), r.pdf(x), r.entropy(), r.mean(), r.var(), r.std())


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(3,), (2, 2)],
}))
class TestGammaSampleIsReparameterizedInTheta(testing.FunctionTestCase):
    """sample() is theta * eps with eps ~ Gamma(k, 1): differentiable in theta."""

    def before_test(self, test_name):
        self.k = np.random.uniform(0.5, 3, self.shape).astype(self.dtype)

    def generate_inputs(self):
        return np.random.uniform(0.5, 2, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        theta, = inputs
        np.random.seed(7)  # the same draws on every call of the gradient check
        k = device.send_array(self.k.astype(theta.dtype))  # the check runs in float64 too
        return Gamma(k, theta).sample(4),

    def forward_expected(self, inputs):
        theta, = inputs
        eps = np.random.RandomState(7).standard_gamma(self.k, (4,) + self.shape)
        return np.asarray(theta * eps, dtype=self.dtype),


def _kl_gamma(k1, t1, k2, t2):
    # E_p[log x] = psi(k1) + log t1 and E_p[x] = k1 t1.
    e_log_x = special.digamma(k1) + np.log(t1)
    neg_entropy = -stats.gamma.entropy(k1, scale=t1)
    cross = -(-special.gammaln(k2) - k2 * np.log(t2) + (k2 - 1) * e_log_x - k1 * t1 / t2)
    return neg_entropy + cross


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestGammaKL(testing.FunctionTestCase):

    def generate_inputs(self):
        return tuple(np.random.uniform(0.5, 3, (3,)).astype(self.dtype) for _ in range(4))

    def forward(self, inputs, device):
        k1, t1, k2, t2 = inputs
        return kl_divergence(Gamma(k1, t1), Gamma(k2, t2)),

    def forward_expected(self, inputs):
        return np.asarray(_kl_gamma(*(v.astype(np.float64) for v in inputs)),
                          dtype=self.dtype),


def test_kl_matches_monte_carlo():
    np.random.seed(0)
    p = Gamma(np.array([0.7, 2.0, 5.0]), np.array([1.0, 0.5, 2.0]))
    q = Gamma(np.array([1.5, 1.0, 4.0]), np.array([2.0, 1.0, 1.5]))
    x = p.sample(200000)
    log_ratio = (p.log_prob(x) - q.log_prob(x)).array
    kl = kl_divergence(p, q).array
    error = log_ratio.std(axis=0) / np.sqrt(len(log_ratio))
    assert np.all(np.abs(log_ratio.mean(axis=0) - kl) < 5 * error)
    np.testing.assert_allclose(cross_entropy(p, q).array, p.entropy.array + kl)
    np.testing.assert_allclose(kl_divergence(p, p).array, 0.0, atol=1e-12)


def test_sample_moments_and_reproducibility():
    k = np.array([0.5, 2.0, 9.0], dtype=np.float32)
    theta = np.array([2.0, 1.0, 0.5], dtype=np.float32)
    d = Gamma(k, theta)
    np.random.seed(3)
    s = d.sample(100000)
    assert s.shape == (100000, 3) and s.dtype == np.float32
    s = s.array
    mean, var = k * theta, k * theta ** 2
    assert np.all(s >= 0)
    assert np.all(np.abs(s.mean(axis=0) - mean) < 5 * np.sqrt(var / len(s)))
    np.testing.assert_allclose(s.var(axis=0), var, rtol=0.05)
    np.random.seed(3)
    np.testing.assert_array_equal(d.sample(100000).array, s)


def test_log_prob_outside_and_at_zero():
    k = np.array([0.5, 1.0, 3.0])
    theta = np.array([1.0, 2.0, 0.5])
    d = Gamma(k, theta)
    for x in ([0.0, 0.0, 0.0], [-1.0, -0.1, -3.0]):
        with np.errstate(divide='ignore'):
            expected = stats.gamma.logpdf(x, k, scale=theta)
        np.testing.assert_allclose(d.log_prob(np.array(x)).array, expected)


def test_gradient_of_log_prob():
    k = catena.Variable(np.array([1.5, 4.0]))
    theta = catena.Variable(np.array([0.5, 2.0]))
    x = np.array([0.7, 3.0])
    F.sum(Gamma(k, theta).log_prob(x)).backward()
    np.testing.assert_allclose(
        k.grad, np.log(x) - special.digamma(k.array) - np.log(theta.array))
    np.testing.assert_allclose(theta.grad, x / theta.array ** 2 - k.array / theta.array)


def test_properties():
    d = Gamma(np.array([0.5, 3.0]), np.array([2.0, 0.5]))
    assert d.batch_shape == (2,) and d.event_shape == ()
    assert d.support == 'positive'
    assert set(d.params) == {'k', 'theta'}
    np.testing.assert_allclose(d.mode.array, [0.0, 1.0])


def test_bad_parameters():
    with pytest.raises(ValueError, match=r'k.*theta.*\(2, 3\).*\(3,\)'):
        Gamma(np.ones((2, 3)), np.ones(3))
    with pytest.raises(TypeError, match='theta'):
        Gamma(np.ones(3), [1.0, 2.0, 3.0])
