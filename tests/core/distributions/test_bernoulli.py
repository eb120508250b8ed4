"""Bernoulli: probabilities and statistics against scipy.stats, sampling, KL, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest
from scipy import stats

import catena
import catena.distributions as D
from catena import gradient_check, testing


def _as(dtype, *values):
    return tuple(np.asarray(v, dtype=dtype) for v in values)


def _logit(p):
    return np.log(p) - np.log1p(-p)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(), (3,), (2, 3)],
    'param': ['p', 'logit'],
}))
class TestBernoulli(testing.FunctionTestCase):

    def generate_inputs(self):
        p = np.random.uniform(0.1, 0.9, self.shape)
        given = p if self.param == 'p' else _logit(p)
        x = np.random.randint(0, 2, (2,) + self.shape).astype(np.int32)
        return given.astype(self.dtype), x

    def forward(self, inputs, device):
        given, x = inputs
        d = D.Bernoulli(**{self.param: given})
        return d.log_prob(x), d.prob(x), d.entropy, d.mean, d.variance, d.stddev

    def forward_expected(self, inputs):
        given, x = inputs
        given = given.astype(np.float64)
        p = given if self.param == 'p' else 1 / (1 + np.exp(-given))
        r = stats.bernoulli(p)
        return _as(self.dtype, r.logpmf(x), r.pmf(x), r.entropy(), r.mean(), r.var(), r.std())


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestBernoulliKL(testing.FunctionTestCase):

    def generate_inputs(self):
        return (np.random.uniform(0.1, 0.9, (3,)).astype(self.dtype),
                _logit(np.random.uniform(0.1, 0.9, (3,))).astype(self.dtype))

    def forward(self, inputs, device):
        p1, logit2 = inputs
        return D.kl_divergence(D.Bernoulli(p1), D.Bernoulli(logit=logit2)),

    def forward_expected(self, inputs):
        p1, logit2 = (a.astype(np.float64) for a in inputs)
        p2 = 1 / (1 + np.exp(-logit2))
        kl = p1 * np.log(p1 / p2) + (1 - p1) * np.log((1 - p1) / (1 - p2))
        return np.asarray(kl, dtype=self.dtype),


def test_kl_matches_monte_carlo():
    np.random.seed(0)
    p = D.Bernoulli(np.array([0.3, 0.8]))
    q = D.Bernoulli(np.array([0.6, 0.5]))
    x = p.sample(200000)
    log_ratio = (p.log_prob(x) - q.log_prob(x)).array
    error = log_ratio.std(axis=0) / np.sqrt(len(log_ratio))
    assert np.all(np.abs(log_ratio.mean(axis=0) - D.kl_divergence(p, q).array) < 5 * error)


def test_certain_outcomes():
    d = D.Bernoulli(np.array([0.0, 1.0]))
    np.testing.assert_array_equal(d.log_prob(np.array([0, 1])).array, [0.0, 0.0])
    with np.errstate(divide='ignore'):
        np.testing.assert_array_equal(d.log_prob(np.array([1, 0])).array, [-np.inf, -np.inf])
    np.testing.assert_array_equal(d.entropy.array, [0.0, 0.0])
    np.testing.assert_array_equal(d.mode.array, [0.0, 1.0])


def test_binary_check():
    x = np.array([0.0, 1.0, 0.5])
    p = np.array([0.25, 0.25, 0.25])
    checked = D.Bernoulli(p, binary_check=True).log_prob(x).array
    np.testing.assert_allclose(checked[:2], np.log([0.75, 0.25]))
    assert checked[2] == -np.inf
    # Without the check the formula is evaluated as it stands.
    unchecked = D.Bernoulli(p).log_prob(x).array
    np.testing.assert_allclose(unchecked[2], 0.5 * np.log(0.25) + 0.5 * np.log(0.75))


def test_sample_frequencies_and_reproducibility():
    p = np.array([[0.1, 0.5], [0.7, 0.95]], dtype=np.float32)
    d = D.Bernoulli(p)
    np.random.seed(4)
    s = d.sample(50000).array
    assert s.shape == (50000, 2, 2) and s.dtype == np.int32
    assert set(np.unique(s)) <= {0, 1}
    assert np.all(np.abs(s.mean(axis=0) - p) < 5 * np.sqrt(p * (1 - p) / len(s)))
    np.random.seed(4)
    np.testing.assert_array_equal(d.sample(50000).array, s)
    assert d.support == '{0, 1}' and d.batch_shape == (2, 2) and d.event_shape == ()


def test_gradient_of_log_prob_by_logit():
    logit = catena.Variable(np.array([0.3, -1.2]))
    catena.functions.sum(D.Bernoulli(logit=logit).log_prob(np.array([1, 0]))).backward()
    p = 1 / (1 + np.exp(-logit.array))
    np.testing.assert_allclose(logit.grad, np.array([1, 0]) - p)


def test_bad_parameters():
    with pytest.raises(ValueError, match='p.*logit'):
        D.Bernoulli(np.array([0.5]), np.array([0.0]))
    with pytest.raises(ValueError, match='p.*logit'):
        D.Bernoulli()
    with pytest.raises(TypeError, match='p'):
        D.Bernoulli(np.array([1, 0]))


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('logit_shape, x_shape', [((2, 3), (2, 3)), ((), ()), ((), (3,))])
def test_bernoulli_log_prob_helper(dtype, logit_shape, x_shape):
    from catena.distributions.bernoulli import _bernoulli_log_prob
    logit = np.random.normal(size=logit_shape).astype(dtype)
    x = np.random.randint(0, 2, x_shape).astype(dtype)
    p = 1 / (1 + np.exp(-logit.astype(np.float64)))
    lp = _bernoulli_log_prob(logit, x)
    assert lp.dtype == dtype and lp.shape == x_shape
    np.testing.assert_allclose(lp.array, stats.bernoulli.logpmf(x, p), rtol=1e-5)
    gy = np.random.normal(size=x_shape).astype(dtype)
    gradient_check.check_backward(
        lambda lg: _bernoulli_log_prob(lg, x), logit, gy, dtype=np.float64,
        atol=1e-3, rtol=1e-3)
    ggx = np.random.normal(size=logit_shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda lg: _bernoulli_log_prob(lg, x), logit, gy, ggx, dtype=np.float64,
        atol=1e-3, rtol=1e-3)


def test_bernoulli_log_prob_helper_binary_check():
    from catena.distributions.bernoulli import _bernoulli_log_prob
    lp = _bernoulli_log_prob(np.zeros(3), np.array([0.0, 0.5, 1.0]), binary_check=True).array
    np.testing.assert_allclose(lp, [np.log(0.5), -np.inf, np.log(0.5)])
