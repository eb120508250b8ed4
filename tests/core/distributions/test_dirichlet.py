"""Dirichlet: densities and statistics against scipy.stats, sampling, KL, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest
from scipy import special, stats

import catena
import catena.functions as F
from catena import testing
from catena.distributions.dirichlet import Dirichlet
from catena.distributions.kl_divergence import cross_entropy, kl_divergence


def _per_batch(function, alpha, *args):
    """Applies a scipy.stats.dirichlet function to each distribution of the batch."""
    batch = alpha.shape[:-1]
    flat = alpha.reshape(-1, alpha.shape[-1])
    flat_args = [a.reshape(-1, alpha.shape[-1]) for a in args]
    results = [function(*[a[i] for a in flat_args], flat[i]) for i in range(len(flat))]
    return np.asarray(results).reshape(batch + np.shape(results[0]))


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(3,), (2, 4), (2, 1, 2)],
}))
class TestDirichlet(testing.FunctionTestCase):

    def generate_inputs(self):
        alpha = np.random.uniform(0.5, 3, self.shape).astype(self.dtype)
        x = np.random.uniform(0.2, 1, self.shape)
        x /= x.sum(axis=-1, keepdims=True)
        return alpha, x.astype(self.dtype)

    def forward(self, inputs, device):
        alpha, x = inputs
        d = Dirichlet(alpha)
        return d.log_prob(x), d.prob(x), d.entropy, d.mean, d.variance, d.stddev

    def forward_expected(self, inputs):
        alpha, x = (v.astype(np.float64) for v in inputs)
        # scipy wants the point to sum to 1 in float64.
        x /= x.sum(axis=-1, keepdims=True)
        d = stats.dirichlet
        logpdf = _per_batch(d.logpdf, alpha, x)
        var = _per_batch(d.var, alpha)
        return tuple(np.asarray(v, dtype=self.dtype) for v in (
            logpdf, np.exp(logpdf), _per_batch(d.entropy, alpha), _per_batch(d.mean, alpha),
            var, np.sqrt(var)))


def _kl_dirichlet(alpha, beta):
    # E_p[log x_i] = psi(alpha_i) - psi(alpha_0).
    e_log_x = special.digamma(alpha) - special.digamma(alpha.sum(-1, keepdims=True))
    log_norm_p = special.gammaln(alpha.sum(-1)) - special.gammaln(alpha).sum(-1)
    log_norm_q = special.gammaln(beta.sum(-1)) - special.gammaln(beta).sum(-1)
    return log_norm_p - log_norm_q + ((alpha - beta) * e_log_x).sum(-1)


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestDirichletKL(testing.FunctionTestCase):

    def generate_inputs(self):
        return tuple(np.random.uniform(0.5, 3, (2, 3)).astype(self.dtype) for _ in range(2))

    def forward(self, inputs, device):
        alpha, beta = inputs
        return kl_divergence(Dirichlet(alpha), Dirichlet(beta)),

    def forward_expected(self, inputs):
        alpha, beta = (v.astype(np.float64) for v in inputs)
        return np.asarray(_kl_dirichlet(alpha, beta), dtype=self.dtype),


def test_kl_matches_monte_carlo():
    np.random.seed(0)
    p = Dirichlet(np.array([[0.8, 2.0, 3.0], [5.0, 1.0, 1.5]]))
    q = Dirichlet(np.array([[2.0, 1.0, 1.0], [1.0, 3.0, 2.0]]))
    x = p.sample(200000)
    log_ratio = (p.log_prob(x) - q.log_prob(x)).array
    kl = kl_divergence(p, q).array
    error = log_ratio.std(axis=0) / np.sqrt(len(log_ratio))
    assert np.all(np.abs(log_ratio.mean(axis=0) - kl) < 5 * error)
    np.testing.assert_allclose(cross_entropy(p, q).array, p.entropy.array + kl)
    np.testing.assert_allclose(kl_divergence(p, p).array, 0.0, atol=1e-12)


def test_sample_moments_and_reproducibility():
    alpha = np.array([[0.5, 2.0, 4.0], [3.0, 3.0, 1.0]], dtype=np.float32)
    d = Dirichlet(alpha)
    np.random.seed(4)
    s = d.sample(50000)
    assert s.shape == (50000, 2, 3) and s.dtype == np.float32 and not s.requires_grad
    s = s.array
    np.testing.assert_allclose(s.sum(axis=-1), 1.0, rtol=1e-5)
    mean, var = _per_batch(stats.dirichlet.mean, alpha), _per_batch(stats.dirichlet.var, alpha)
    assert np.all(np.abs(s.mean(axis=0) - mean) < 5 * np.sqrt(var / len(s)))
    np.testing.assert_allclose(s.var(axis=0), var, rtol=0.05)
    np.random.seed(4)
    np.testing.assert_array_equal(d.sample(50000).array, s)


def test_log_prob_on_the_boundary_and_outside():
    alpha = np.array([[1.0, 2.0, 3.0], [0.5, 1.0, 1.0], [2.0, 2.0, 2.0]])
    d = Dirichlet(alpha)
    x = np.array([[0.0, 0.5, 0.5], [0.0, 0.5, 0.5], [-0.2, 0.6, 0.6]])
    lp = d.log_prob(x).array
    np.testing.assert_allclose(lp[:2], [stats.dirichlet.logpdf(x[0], alpha[0]), np.inf])
    assert lp[2] == -np.inf


def test_gradient_of_log_prob():
    alpha = catena.Variable(np.array([1.5, 0.7, 2.0]))
    x = np.array([0.2, 0.3, 0.5])
    F.sum(Dirichlet(alpha).log_prob(x)).backward()
    a = alpha.array
    np.testing.assert_allclose(alpha.grad,
                               np.log(x) + special.digamma(a.sum()) - special.digamma(a))


def test_properties():
    alpha = np.array([[2.0, 3.0, 4.0]])
    d = Dirichlet(alpha)
    assert d.batch_shape == (1,) and d.event_shape == (3,)
    assert d.support == '[0, 1]'
    assert set(d.params) == {'alpha'}
    np.testing.assert_allclose(d.alpha0.array, [9.0])
    np.testing.assert_allclose(d.mode.array, [[1 / 6, 2 / 6, 3 / 6]])


def test_bad_parameters():
    with pytest.raises(ValueError, match=r'alpha.*\(\)'):
        Dirichlet(np.float64(1.0))
    with pytest.raises(TypeError, match='alpha'):
        Dirichlet(np.ones(3, np.int64))
    with pytest.raises(ValueError, match=r'x.*\(3,\).*\(2, 4\)'):
        Dirichlet(np.ones((2, 3))).log_prob(np.full((2, 4), 0.25))
