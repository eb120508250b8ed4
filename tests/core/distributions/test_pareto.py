"""Pareto: densities and statistics against scipy.stats, sampling, KL, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest
from scipy import stats

import catena
import catena.functions as F
from catena import testing
from catena.distributions.kl_divergence import cross_entropy, kl_divergence
from catena.distributions.pareto import Pareto


def _as(dtype, *values):
    return tuple(np.asarray(v, dtype=dtype) for v in values)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(), (3,), (2, 3)],
}))
class TestPareto(testing.FunctionTestCase):

    def generate_inputs(self):
        scale = np.random.uniform(0.5, 2, self.shape).astype(self.dtype)
        alpha = np.random.uniform(2.5, 5, self.shape).astype(self.dtype)
        x = (scale + np.random.uniform(0.2, 2, self.shape)).astype(self.dtype)
        q = np.random.uniform(0.1, 0.9, self.shape).astype(self.dtype)
        return scale, alpha, x, q

    def forward(self, inputs, device):
        scale, alpha, x, q = inputs
        d = Pareto(scale, alpha)
        return (d.log_prob(x), d.prob(x), d.cdf(x), d.icdf(q), d.entropy, d.mean, d.variance,
                d.stddev)

    def forward_expected(self, inputs):
        scale, alpha, x, q = (v.astype(np.float64) for v in inputs)
        r = stats.pareto(alpha, scale=scale)
        return _as(self.dtype, r.logpdf(x), r.pdf(x), r.cdf(x), r.ppf(q), r.entropy(), r.mean(),
                   r.var(), r.std())


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(3,), (2, 2)],
}))
class TestParetoReparameterizedSample(testing.FunctionTestCase):
    """sample() is scale * exp(eps / alpha): differentiable in both parameters."""

    def generate_inputs(self):
        scale = np.random.uniform(0.5, 2, self.shape).astype(self.dtype)
        alpha = np.random.uniform(2, 5, self.shape).astype(self.dtype)
        return scale, alpha

    def forward(self, inputs, device):
        np.random.seed(7)  # the same draws on every call of the gradient check
        return Pareto(*inputs).sample(4),

    def forward_expected(self, inputs):
        scale, alpha = inputs
        # NumPy's pareto draws the Lomax distribution, Pareto(1, alpha) minus one.
        lomax = np.random.RandomState(7).pareto(alpha, (4,) + self.shape)
        return np.asarray(scale * (lomax + 1), dtype=self.dtype),


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestParetoKL(testing.FunctionTestCase):

    def generate_inputs(self):
        scale2 = np.random.uniform(0.5, 1.5, (3,))
        scale1 = scale2 + np.random.uniform(0.1, 1, (3,))  # inside the support of dist2
        alpha1, alpha2 = np.random.uniform(1, 4, (2, 3))
        return tuple(v.astype(self.dtype) for v in (scale1, alpha1, scale2, alpha2))

    def forward(self, inputs, device):
        s1, a1, s2, a2 = inputs
        return kl_divergence(Pareto(s1, a1), Pareto(s2, a2)),

    def forward_expected(self, inputs):
        s1, a1, s2, a2 = (v.astype(np.float64) for v in inputs)
        # E_p[log x] = log s1 + 1 / a1.
        e_log_x = np.log(s1) + 1 / a1
        cross = -(np.log(a2) + a2 * np.log(s2) - (a2 + 1) * e_log_x)
        kl = cross - stats.pareto.entropy(a1, scale=s1)
        return np.asarray(kl, dtype=self.dtype),


def test_kl_matches_monte_carlo_and_is_infinite_outside_the_support():
    np.random.seed(0)
    p = Pareto(np.array([1.0, 2.0, 0.5]), np.array([3.0, 1.5, 2.0]))
    q = Pareto(np.array([0.5, 2.0, 0.1]), np.array([1.0, 4.0, 2.5]))
    x = p.sample(200000)
    log_ratio = (p.log_prob(x) - q.log_prob(x)).array
    kl = kl_divergence(p, q).array
    error = log_ratio.std(axis=0) / np.sqrt(len(log_ratio))
    assert np.all(np.abs(log_ratio.mean(axis=0) - kl) < 5 * error)
    np.testing.assert_allclose(cross_entropy(p, q).array, p.entropy.array + kl)
    np.testing.assert_allclose(kl_divergence(p, p).array, 0.0, atol=1e-12)
    # Where dist1 puts mass below the scale of dist2, the divergence is infinite.
    np.testing.assert_array_equal(kl_divergence(q, p).array[[0, 2]], np.inf)


def test_sample_moments_and_reproducibility():
    scale = np.array([1.0, 0.5, 3.0], dtype=np.float32)
    alpha = np.array([5.0, 6.0, 8.0], dtype=np.float32)
    d = Pareto(scale, alpha)
    np.random.seed(8)
    s = d.sample(100000)
    assert s.shape == (100000, 3) and s.dtype == np.float32
    s = s.array
    assert np.all(s >= scale)
    mean, var = stats.pareto.mean(alpha, scale=scale), stats.pareto.var(alpha, scale=scale)
    assert np.all(np.abs(s.mean(axis=0) - mean) < 5 * np.sqrt(var / len(s)))
    np.testing.assert_allclose(np.median(s, axis=0), stats.pareto.median(alpha, scale=scale),
                               rtol=0.01)
    np.testing.assert_allclose(s.var(axis=0), var, rtol=0.1)
    np.random.seed(8)
    np.testing.assert_array_equal(d.sample(100000).array, s)


def test_outside_the_support_and_infinite_moments():
    d = Pareto(np.array([1.0, 2.0, 0.5]), np.array([0.5, 1.5, 3.0]))
    x = np.array([0.5, 1.0, 0.2])
    np.testing.assert_array_equal(d.log_prob(x).array, -np.inf)
    np.testing.assert_array_equal(d.cdf(x).array, 0.0)
    np.testing.assert_allclose(d.mean.array, [np.inf, 6.0, 0.75])
    np.testing.assert_allclose(d.variance.array, [np.inf, np.inf, 0.1875])


def test_gradient_of_log_prob():
    scale = catena.Variable(np.array([1.0, 0.5]))
    alpha = catena.Variable(np.array([2.0, 3.0]))
    x = np.array([1.5, 2.0])
    F.sum(Pareto(scale, alpha).log_prob(x)).backward()
    np.testing.assert_allclose(scale.grad, alpha.array / scale.array)
    np.testing.assert_allclose(alpha.grad,
                               1 / alpha.array + np.log(scale.array) - np.log(x))


def test_properties():
    scale = np.array([1.0, 2.0])
    d = Pareto(scale, np.array([3.0, 4.0]))
    assert d.batch_shape == (2,) and d.event_shape == ()
    assert d.support == '[scale, inf]'
    assert set(d.params) == {'scale', 'alpha'}
    np.testing.assert_array_equal(d.mode.array, scale)


def test_bad_parameters():
    with pytest.raises(ValueError, match=r'scale.*alpha.*\(2,\).*\(3,\)'):
        Pareto(np.ones(2), np.ones(3))
    with pytest.raises(TypeError, match='alpha'):
        Pareto(np.ones(2), np.array([1, 2]))
