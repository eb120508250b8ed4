"""Normal: densities and statistics against scipy.stats, sampling, KL, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import copy

import numpy as np
import pytest
from scipy import stats

import catena
import catena.distributions as D
from catena import testing


def _as(dtype, *values):
    return tuple(np.asarray(v, dtype=dtype) for v in values)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(), (3,), (2, 3)],
    'log_scale': [False, True],
}))
class TestNormal(testing.FunctionTestCase):

    def generate_inputs(self):
        loc = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        scale = np.random.uniform(0.5, 2, self.shape).astype(self.dtype)
        x = np.random.uniform(-2, 2, self.shape).astype(self.dtype)
        q = np.random.uniform(0.1, 0.9, self.shape).astype(self.dtype)
        return loc, scale, x, q

    def forward(self, inputs, device):
        loc, scale, x, q = inputs
        if self.log_scale:
            d = D.Normal(loc, log_scale=catena.functions.log(scale))
        else:
            d = D.Normal(loc, scale)
        return (d.log_prob(x), d.entropy, d.mean, d.variance, d.stddev, d.cdf(x),
                d.log_cdf(x), d.survival_function(x), d.log_survival_function(x),
                d.icdf(q), d.prob(x))

    def forward_expected(self, inputs):
        loc, scale, x, q = (a.astype(np.float64) for a in inputs)
        r = stats.norm(loc, scale)
        return _as(self.dtype, r.logpdf(x), r.entropy(), r.mean(), r.var(), r.std(),
                   r.cdf(x), r.logcdf(x), r.sf(x), r.logsf(x), r.ppf(q), r.pdf(x))


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(3,), (2, 2)],
}))
class TestNormalReparameterizedSample(testing.FunctionTestCase):
    """sample() is loc + scale * eps: the draws are differentiable in both parameters."""

    def generate_inputs(self):
        loc = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        scale = np.random.uniform(0.5, 2, self.shape).astype(self.dtype)
        return loc, scale

    def forward(self, inputs, device):
        np.random.seed(7)  # the same draws on every call of the gradient check
        return D.Normal(*inputs).sample(4),

    def forward_expected(self, inputs):
        loc, scale = inputs
        eps = np.random.RandomState(7).standard_normal((4,) + self.shape).astype(self.dtype)
        return np.asarray(loc + scale * eps, dtype=self.dtype),


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestNormalKL(testing.FunctionTestCase):

    def generate_inputs(self):
        def params():
            return (np.random.uniform(-1, 1, (3,)).astype(self.dtype),
                    np.random.uniform(0.5, 2, (3,)).astype(self.dtype))
        return params() + params()

    def forward(self, inputs, device):
        l1, s1, l2, s2 = inputs
        return D.kl_divergence(D.Normal(l1, s1), D.Normal(l2, s2)),

    def forward_expected(self, inputs):
        l1, s1, l2, s2 = inputs
        kl = np.log(s2 / s1) + (s1 ** 2 + (l1 - l2) ** 2) / (2 * s2 ** 2) - 0.5
        return np.asarray(kl, dtype=self.dtype),


def test_kl_matches_monte_carlo():
    np.random.seed(0)
    p = D.Normal(np.array([0.0, 1.0]), np.array([1.0, 0.5]))
    q = D.Normal(np.array([0.5, -1.0]), np.array([2.0, 1.5]))
    x = p.sample(200000)
    log_ratio = (p.log_prob(x) - q.log_prob(x)).array
    kl = D.kl_divergence(p, q).array
    error = log_ratio.std(axis=0) / np.sqrt(len(log_ratio))
    assert np.all(np.abs(log_ratio.mean(axis=0) - kl) < 5 * error)
    np.testing.assert_allclose(D.cross_entropy(p, q).array, p.entropy.array + kl)
    np.testing.assert_allclose(D.kl_divergence(p, p).array, 0.0, atol=1e-12)


def test_sample_moments_and_reproducibility():
    loc = np.array([-1.0, 0.0, 3.0], dtype=np.float32)
    scale = np.array([0.5, 1.0, 2.0], dtype=np.float32)
    d = D.Normal(loc, scale)
    np.random.seed(3)
    s = d.sample(50000)
    assert s.shape == (50000, 3) and s.dtype == np.float32
    n = len(s.array)
    assert np.all(np.abs(s.array.mean(axis=0) - loc) < 5 * scale / np.sqrt(n))
    np.testing.assert_allclose(s.array.var(axis=0), scale ** 2, rtol=0.05)
    np.random.seed(3)
    np.testing.assert_array_equal(d.sample(50000).array, s.array)


@pytest.mark.parametrize('sample_shape, expected', [
    ((), (2, 3)), (5, (5, 2, 3)), ((4, 1), (4, 1, 2, 3)), ([2], (2, 2, 3)), (0, (0, 2, 3)),
])
def test_sample_shape(sample_shape, expected):
    d = D.Normal(np.zeros((2, 3)), np.ones((2, 3)))
    assert d.sample(sample_shape).shape == expected
    assert d.batch_shape == (2, 3) and d.event_shape == ()


def test_log_prob_broadcasts_over_sample_axes():
    d = D.Normal(np.array([0.0, 1.0]), np.array([1.0, 2.0]))
    x = np.array([[0.5, 0.5], [-1.0, 3.0], [0.0, 0.0]])
    np.testing.assert_allclose(d.log_prob(x).array,
                               stats.norm.logpdf(x, [0.0, 1.0], [1.0, 2.0]))


def test_params_support_mode_and_copy():
    loc = catena.Variable(np.array([0.0, 1.0]))
    d = D.Normal(loc, log_scale=np.array([0.0, np.log(2.0)]))
    assert d.mean is loc and d.mode is loc
    assert set(d.params) == {'loc', 'scale'}
    np.testing.assert_allclose(d.params['scale'].array, [1.0, 2.0])
    assert d.support == 'real'
    other = copy.copy(d)
    assert type(other) is D.Normal and other.loc is loc
    assert 'Normal' in repr(d) and 'loc' in repr(d)


def test_gradient_flows_to_parameters():
    loc = catena.Variable(np.array([0.0, 1.0]))
    scale = catena.Variable(np.array([1.0, 2.0]))
    y = catena.functions.sum(D.Normal(loc, scale).log_prob(np.array([1.0, 0.0])))
    y.backward()
    np.testing.assert_allclose(loc.grad, [1.0, -0.25])
    np.testing.assert_allclose(scale.grad, [0.0, -0.5 + 0.125])


def test_bad_parameters():
    with pytest.raises(ValueError, match=r'loc.*scale.*\(3,\).*\(2,\)'):
        D.Normal(np.zeros(3), np.ones(2))
    with pytest.raises(ValueError, match='loc.*log_scale'):
        D.Normal(np.zeros(3, np.float32), log_scale=np.zeros(3, np.float64))
    with pytest.raises(ValueError, match='scale.*log_scale'):
        D.Normal(np.zeros(3))
    with pytest.raises(ValueError, match='scale.*log_scale'):
        D.Normal(np.zeros(3), np.ones(3), np.zeros(3))
    with pytest.raises(TypeError, match='loc'):
        D.Normal(np.zeros(3, np.int32), np.ones(3))
    with pytest.raises(ValueError, match='sample_shape'):
        D.Normal(np.zeros(3), np.ones(3)).sample(-1)


def test_kl_of_unregistered_pair_names_both():
    with pytest.raises(NotImplementedError, match='Normal.*Cauchy'):
        D.kl_divergence(D.Normal(np.zeros(2), np.ones(2)), D.Cauchy(np.zeros(2), np.ones(2)))
