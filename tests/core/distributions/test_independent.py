"""Independent: reductions over reinterpreted axes against scipy.stats, KL, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest
from scipy import linalg, stats

import catena.distributions as D
from catena import testing
from catena.distributions.beta import Beta
from catena.distributions.independent import Independent
from catena.distributions.kl_divergence import cross_entropy, kl_divergence
from catena.distributions.multivariate_normal import MultivariateNormal


def _sum_last(value, n):
    return value.sum(axis=tuple(range(-n, 0))) if n else value


def _prod_last(value, n):
    return value.prod(axis=tuple(range(-n, 0))) if n else value


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape_ndims': [((3,), None), ((3,), 1), ((2, 3), None), ((2, 3), 2), ((2, 1, 2), 0)],
}))
class TestIndependentNormal(testing.FunctionTestCase):

    def generate_inputs(self):
        shape = self.shape_ndims[0]
        loc = np.random.uniform(-1, 1, shape).astype(self.dtype)
        scale = np.random.uniform(0.5, 2, shape).astype(self.dtype)
        x = np.random.uniform(-2, 2, (2,) + shape).astype(self.dtype)
        return loc, scale, x

    def forward(self, inputs, device):
        loc, scale, x = inputs
        d = Independent(D.Normal(loc, scale), self.shape_ndims[1])
        return (d.log_prob(x), d.prob(x), d.cdf(x), d.log_cdf(x), d.survival_function(x),
                d.entropy, d.mean, d.variance, d.stddev, d.covariance)

    def forward_expected(self, inputs):
        shape, ndims = self.shape_ndims
        if ndims is None:
            ndims = max(len(shape) - 1, 0)
        loc, scale, x = (v.astype(np.float64) for v in inputs)
        r = stats.norm(loc, scale)
        var = r.var()
        batch = shape[:len(shape) - ndims]
        m = int(np.prod(shape[len(batch):]))
        cov = np.zeros(batch + (m, m))
        idx = np.arange(m)
        cov[..., idx, idx] = var.reshape(batch + (m,))
        return tuple(np.asarray(v, dtype=self.dtype) for v in (
            _sum_last(r.logpdf(x), ndims), _prod_last(r.pdf(x), ndims),
            _prod_last(r.cdf(x), ndims), _sum_last(r.logcdf(x), ndims),
            _prod_last(r.sf(x), ndims), _sum_last(r.entropy(), ndims), loc, var, r.std(), cov))


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestIndependentBeta(testing.FunctionTestCase):

    def generate_inputs(self):
        a = np.random.uniform(0.5, 3, (2, 3)).astype(self.dtype)
        b = np.random.uniform(0.5, 3, (2, 3)).astype(self.dtype)
        x = np.random.uniform(0.1, 0.9, (2, 3)).astype(self.dtype)
        return a, b, x

    def forward(self, inputs, device):
        a, b, x = inputs
        d = Independent(Beta(a, b))
        return d.log_prob(x), d.entropy, d.mean, d.variance

    def forward_expected(self, inputs):
        a, b, x = (v.astype(np.float64) for v in inputs)
        r = stats.beta(a, b)
        return tuple(np.asarray(v, dtype=self.dtype) for v in (
            r.logpdf(x).sum(-1), r.entropy().sum(-1), r.mean(), r.var()))


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestIndependentKL(testing.FunctionTestCase):

    def generate_inputs(self):
        def params():
            return (np.random.uniform(-1, 1, (2, 3)).astype(self.dtype),
                    np.random.uniform(0.5, 2, (2, 3)).astype(self.dtype))
        return params() + params()

    def forward(self, inputs, device):
        l1, s1, l2, s2 = inputs
        return kl_divergence(Independent(D.Normal(l1, s1)), Independent(D.Normal(l2, s2))),

    def forward_expected(self, inputs):
        l1, s1, l2, s2 = (v.astype(np.float64) for v in inputs)
        kl = np.log(s2 / s1) + (s1 ** 2 + (l1 - l2) ** 2) / (2 * s2 ** 2) - 0.5
        return np.asarray(kl.sum(-1), dtype=self.dtype),


def test_kl_of_independent_normals_is_that_of_diagonal_multivariate_normals():
    np.random.seed(2)
    loc1, loc2 = np.random.uniform(-1, 1, (2, 2, 3))
    scale1, scale2 = np.random.uniform(0.5, 2, (2, 2, 3))
    p, q = Independent(D.Normal(loc1, scale1)), Independent(D.Normal(loc2, scale2))

    def mvn(loc, scale):
        return MultivariateNormal(loc, scale_tril=scale[..., None] * np.eye(3))

    expected = kl_divergence(mvn(loc1, scale1), mvn(loc2, scale2)).array
    np.testing.assert_allclose(kl_divergence(p, q).array, expected)
    np.testing.assert_allclose(cross_entropy(p, q).array, p.entropy.array + expected)


def test_kl_matches_monte_carlo():
    np.random.seed(0)
    p = Independent(Beta(np.array([[0.8, 2.0], [3.0, 1.0]]), np.array([[1.5, 2.0], [1.0, 4.0]])))
    q = Independent(Beta(np.array([[2.0, 1.0], [1.0, 1.0]]), np.array([[1.0, 3.0], [2.0, 2.0]])))
    x = p.sample(100000)
    log_ratio = (p.log_prob(x) - q.log_prob(x)).array
    kl = kl_divergence(p, q).array
    error = log_ratio.std(axis=0) / np.sqrt(len(log_ratio))
    assert np.all(np.abs(log_ratio.mean(axis=0) - kl) < 5 * error)


def test_covariance_of_multivariate_components_is_block_diagonal():
    np.random.seed(3)
    loc = np.zeros((2, 3, 2))
    tril = np.tril(np.random.uniform(0.5, 1.5, (2, 3, 2, 2)))
    d = Independent(MultivariateNormal(loc, scale_tril=tril))
    assert d.batch_shape == (2,) and d.event_shape == (3, 2)
    cov = tril @ np.swapaxes(tril, -1, -2)
    expected = np.stack([linalg.block_diag(*cov[i]) for i in range(2)])
    np.testing.assert_allclose(d.covariance.array, expected)
    x = np.random.uniform(-1, 1, (4, 2, 3, 2))
    np.testing.assert_allclose(
        d.log_prob(x).array,
        [[stats.multivariate_normal(np.zeros(6), expected[i]).logpdf(x[n, i].ravel())
          for i in range(2)] for n in range(4)])


def test_shapes_sampling_and_delegation():
    base = D.Normal(np.zeros((4, 2, 3)), np.ones((4, 2, 3)))
    d = Independent(base, reinterpreted_batch_ndims=2)
    assert d.batch_shape == (4,) and d.event_shape == (2, 3)
    assert d.distribution is base and d.reinterpreted_batch_ndims == 2
    assert d.params == base.params
    assert d.support == 'real' and d.xp is np
    assert d.mean is base.mean and d.mode is base.mode
    np.random.seed(1)
    s = d.sample((5, 2))
    assert s.shape == (5, 2, 4, 2, 3)
    np.random.seed(1)
    np.testing.assert_array_equal(base.sample((5, 2)).array, s.array)
    assert d.log_prob(s).shape == (5, 2, 4)
    assert Independent(D.Normal(np.zeros(3), np.ones(3))).event_shape == ()
    assert 'Independent' in repr(d) and 'Normal' in repr(d)
    with pytest.raises(NotImplementedError, match='invertible'):
        d.icdf(np.full((4, 2, 3), 0.5))


def test_bad_arguments():
    base = D.Normal(np.zeros((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match=r'reinterpreted_batch_ndims.*2.*\(2, 3\).*3'):
        Independent(base, 3)
    with pytest.raises(ValueError, match='reinterpreted_batch_ndims'):
        Independent(base, -1)
    with pytest.raises(TypeError, match='reinterpreted_batch_ndims'):
        Independent(base, 1.0)
    with pytest.raises(TypeError, match='distribution'):
        Independent(np.zeros(3))
    other = Independent(D.Normal(np.zeros((3, 3)), np.ones((3, 3))))
    with pytest.raises(ValueError, match=r'batch shapes \(2,\) and \(3,\)'):
        kl_divergence(Independent(base), other)
