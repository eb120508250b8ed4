"""MultivariateNormal: densities and statistics against scipy.stats, sampling, KL, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest
from scipy import stats

import catena
import catena.functions as F
from catena import testing
from catena.distributions.kl_divergence import cross_entropy, kl_divergence
from catena.distributions.multivariate_normal import (
    MultivariateNormal,
    TriangularInv,
    _triangular_inv,
)


def _random_tril(shape, d):
    """Well-conditioned lower triangular factors with positive diagonals."""
    tril = np.tril(np.random.uniform(-0.5, 0.5, shape + (d, d)), -1)
    return tril + np.eye(d) * np.random.uniform(0.7, 1.5, shape + (d, 1))


def _per_batch(function, loc, cov, *args):
    """Applies ``function(frozen scipy distribution, *args)`` to each distribution."""
    batch, d = loc.shape[:-1], loc.shape[-1]
    loc2, cov2 = loc.reshape(-1, d), cov.reshape(-1, d, d)
    results = [function(stats.multivariate_normal(loc2[i], cov2[i]),
                        *[a.reshape(a.shape[:a.ndim - len(batch) - 1] + (-1, d))[..., i, :]
                          for a in args])
               for i in range(len(loc2))]
    results = np.asarray(results)
    return np.moveaxis(results, 0, -1).reshape(results.shape[1:] + batch)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape_d': [((), 1), ((), 3), ((2,), 2), ((2, 1), 3)],
}))
class TestMultivariateNormal(testing.FunctionTestCase):

    def generate_inputs(self):
        shape, d = self.shape_d
        loc = np.random.uniform(-1, 1, shape + (d,)).astype(self.dtype)
        scale_tril = _random_tril(shape, d).astype(self.dtype)
        x = np.random.uniform(-2, 2, (3,) + shape + (d,)).astype(self.dtype)
        return loc, scale_tril, x

    def forward(self, inputs, device):
        loc, scale_tril, x = inputs
        dist = MultivariateNormal(loc, scale_tril=scale_tril)
        return (dist.log_prob(x), dist.prob(x), dist.entropy, dist.mean, dist.variance,
                dist.stddev, dist.covariance)

    def forward_expected(self, inputs):
        loc, scale_tril, x = (v.astype(np.float64) for v in inputs)
        cov = scale_tril @ np.swapaxes(scale_tril, -1, -2)
        logpdf = _per_batch(lambda r, v: r.logpdf(v), loc, cov, x)
        entropy = _per_batch(lambda r: r.entropy(), loc, cov)
        var = np.diagonal(cov, axis1=-2, axis2=-1)
        return tuple(np.asarray(v, dtype=self.dtype) for v in (
            logpdf, np.exp(logpdf), entropy, loc, var, np.sqrt(var), cov))


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(), (2,)],
}))
class TestMultivariateNormalReparameterizedSample(testing.FunctionTestCase):
    """sample() is loc + L eps: differentiable in both parameters."""

    def generate_inputs(self):
        loc = np.random.uniform(-1, 1, self.shape + (3,)).astype(self.dtype)
        return loc, _random_tril(self.shape, 3).astype(self.dtype)

    def forward(self, inputs, device):
        np.random.seed(7)  # the same draws on every call of the gradient check
        loc, scale_tril = inputs
        return MultivariateNormal(loc, scale_tril=scale_tril).sample(4),

    def forward_expected(self, inputs):
        loc, scale_tril = inputs
        eps = np.random.RandomState(7).standard_normal((4,) + self.shape + (3, 1))
        return np.asarray(loc + (scale_tril @ eps)[..., 0], dtype=self.dtype),


def _kl_mvn(loc1, cov1, loc2, cov2):
    d = loc1.shape[-1]
    inv2 = np.linalg.inv(cov2)
    diff = loc2 - loc1
    trace = np.trace(inv2 @ cov1, axis1=-2, axis2=-1)
    mahalanobis = np.einsum('...i,...ij,...j->...', diff, inv2, diff)
    logdet = np.linalg.slogdet(cov2)[1] - np.linalg.slogdet(cov1)[1]
    return 0.5 * (trace + mahalanobis - d + logdet)


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestMultivariateNormalKL(testing.FunctionTestCase):

    def generate_inputs(self):
        def params():
            return (np.random.uniform(-1, 1, (2, 3)).astype(self.dtype),
                    _random_tril((2,), 3).astype(self.dtype))
        return params() + params()

    def forward(self, inputs, device):
        l1, s1, l2, s2 = inputs
        return kl_divergence(MultivariateNormal(l1, scale_tril=s1),
                             MultivariateNormal(l2, scale_tril=s2)),

    def forward_expected(self, inputs):
        l1, s1, l2, s2 = (v.astype(np.float64) for v in inputs)
        cov1, cov2 = s1 @ np.swapaxes(s1, -1, -2), s2 @ np.swapaxes(s2, -1, -2)
        return np.asarray(_kl_mvn(l1, cov1, l2, cov2), dtype=self.dtype),


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(3, 3), (2, 2, 2)],
}))
class TestTriangularInv(testing.FunctionTestCase):

    def generate_inputs(self):
        d = self.shape[-1]
        return _random_tril(self.shape[:-2], d).astype(self.dtype),

    def forward(self, inputs, device):
        return TriangularInv().apply(inputs)

    def forward_expected(self, inputs):
        return np.linalg.inv(inputs[0]).astype(self.dtype),


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(3, 3), (2, 2, 2), (0, 0)],
}))
class TestUpperTriangularInv(testing.FunctionTestCase):

    def generate_inputs(self):
        d = self.shape[-1]
        return np.swapaxes(_random_tril(self.shape[:-2], d), -1, -2).astype(self.dtype),

    def forward(self, inputs, device):
        return _triangular_inv(inputs[0], lower=False),

    def forward_expected(self, inputs):
        return np.linalg.inv(inputs[0]).astype(self.dtype),


def test_kl_matches_monte_carlo():
    np.random.seed(0)
    tril = _random_tril((2,), 3)
    p = MultivariateNormal(np.array([[0.0, 1.0, -1.0], [0.5, 0.5, 0.0]]), scale_tril=tril)
    q = MultivariateNormal(np.array([[1.0, 0.0, 0.0], [0.0, -0.5, 1.0]]),
                           scale_tril=_random_tril((2,), 3) * 1.5)
    x = p.sample(100000)
    log_ratio = (p.log_prob(x) - q.log_prob(x)).array
    kl = kl_divergence(p, q).array
    error = log_ratio.std(axis=0) / np.sqrt(len(log_ratio))
    assert np.all(np.abs(log_ratio.mean(axis=0) - kl) < 5 * error)
    np.testing.assert_allclose(cross_entropy(p, q).array, p.entropy.array + kl)
    np.testing.assert_allclose(kl_divergence(p, p).array, 0.0, atol=1e-12)


def test_sample_moments_and_reproducibility():
    loc = np.array([1.0, -2.0, 0.5], dtype=np.float32)
    tril = np.array([[1.0, 0, 0], [0.5, 2.0, 0], [-1.0, 0.3, 0.5]], dtype=np.float32)
    cov = tril @ tril.T
    d = MultivariateNormal(loc, scale_tril=tril)
    np.random.seed(9)
    s = d.sample(100000)
    assert s.shape == (100000, 3) and s.dtype == np.float32
    s = s.array.astype(np.float64)
    assert np.all(np.abs(s.mean(axis=0) - loc) < 5 * np.sqrt(np.diag(cov) / len(s)))
    np.testing.assert_allclose(np.cov(s.T), cov, atol=0.05)
    np.random.seed(9)
    np.testing.assert_array_equal(d.sample(100000).array, s.astype(np.float32))


def test_upper_triangle_is_ignored():
    np.random.seed(1)
    loc = np.zeros(3)
    tril = _random_tril((), 3)
    full = tril + np.triu(np.ones((3, 3)), 1)
    x = np.random.uniform(-1, 1, (4, 3))
    plain = MultivariateNormal(loc, scale_tril=tril)
    noisy = MultivariateNormal(loc, scale_tril=catena.Variable(full))
    np.testing.assert_allclose(noisy.log_prob(x).array, plain.log_prob(x).array)
    np.testing.assert_allclose(noisy.covariance.array, plain.covariance.array)
    F.sum(noisy.log_prob(x)).backward()
    np.testing.assert_array_equal(np.triu(noisy.scale_tril.grad, 1), 0.0)


def test_gradient_of_log_prob_in_loc():
    np.random.seed(2)
    tril = _random_tril((), 2)
    loc = catena.Variable(np.array([0.5, -1.0]))
    x = np.array([1.0, 1.0])
    F.sum(MultivariateNormal(loc, scale_tril=tril).log_prob(x)).backward()
    np.testing.assert_allclose(loc.grad, np.linalg.solve(tril @ tril.T, x - loc.array))


def test_properties():
    loc = np.zeros((2, 3))
    d = MultivariateNormal(loc, scale_tril=np.broadcast_to(np.eye(3), (2, 3, 3)).copy())
    assert d.batch_shape == (2,) and d.event_shape == (3,) and d.d == 3
    assert d.support == 'real'
    assert set(d.params) == {'loc', 'scale_tril'}
    assert d.mode is d.loc and d.mean is d.loc


def test_bad_parameters():
    with pytest.raises(ValueError, match='scale_tril'):
        MultivariateNormal(np.zeros(3))
    with pytest.raises(ValueError, match=r'scale_tril.*\(3, 3\).*\(3,\).*\(2, 2\)'):
        MultivariateNormal(np.zeros(3), scale_tril=np.eye(2))
    with pytest.raises(ValueError, match=r'loc.*\(\)'):
        MultivariateNormal(np.float64(0.0), scale_tril=np.eye(1))
    with pytest.raises(ValueError, match='dtype'):
        MultivariateNormal(np.zeros(2, np.float32), scale_tril=np.eye(2))
    with pytest.raises(TypeError, match='scale_tril'):
        MultivariateNormal(np.zeros(2), scale_tril=np.eye(2, dtype=np.int64))
    d = MultivariateNormal(np.zeros(3), scale_tril=np.eye(3))
    with pytest.raises(ValueError, match=r'x.*\(3,\).*\(2,\)'):
        d.log_prob(np.zeros(2))
    with pytest.raises(ValueError, match='event shape'):
        kl_divergence(d, MultivariateNormal(np.zeros(2), scale_tril=np.eye(2)))
