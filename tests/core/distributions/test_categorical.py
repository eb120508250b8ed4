"""Categorical and OneHotCategorical: probabilities, entropy, sampling, KL, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest
from scipy import special, stats

import catena
import catena.distributions as D
from catena import testing


def _simplex(shape):
    p = np.random.uniform(0.2, 1.0, shape)
    return p / p.sum(axis=-1, keepdims=True)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'batch': [(), (3,), (2, 3)],
    'param': ['p', 'logit'],
}))
class TestCategorical(testing.FunctionTestCase):

    def generate_inputs(self):
        p = _simplex(self.batch + (4,))
        given = p if self.param == 'p' else np.log(p) + 0.3
        x = np.random.randint(0, 4, (2,) + self.batch).astype(np.int32)
        return given.astype(self.dtype), x

    def forward(self, inputs, device):
        given, x = inputs
        d = D.Categorical(**{self.param: given})
        return d.log_prob(x), d.prob(x), d.entropy

    def forward_expected(self, inputs):
        given, x = inputs
        given = given.astype(np.float64)
        # Not normalized on purpose for 'p': the gradient check leaves the simplex.
        log_p = np.log(given) if self.param == 'p' else special.log_softmax(given, axis=-1)
        picked = np.take_along_axis(np.broadcast_to(log_p, x.shape + (4,)),
                                    x[..., None], axis=-1)[..., 0]
        entropy = -(np.exp(log_p) * log_p).sum(axis=-1)
        return tuple(np.asarray(v, dtype=self.dtype)
                     for v in (picked, np.exp(picked), entropy))


def test_entropy_matches_scipy_and_allows_zeros():
    p = np.array([[0.2, 0.3, 0.5], [0.0, 0.25, 0.75]])
    np.testing.assert_allclose(D.Categorical(p).entropy.array, stats.entropy(p, axis=-1))
    np.testing.assert_allclose(D.OneHotCategorical(p).entropy.array, stats.entropy(p, axis=-1))
    np.testing.assert_allclose(D.Categorical(p).log_prob(np.array([2, 2])).array,
                               np.log([0.5, 0.75]))


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'batch': [(), (3,)],
}))
class TestOneHotCategorical(testing.FunctionTestCase):

    def generate_inputs(self):
        p = _simplex(self.batch + (4,)).astype(self.dtype)
        index = np.random.randint(0, 4, (2,) + self.batch).astype(np.int32)
        return p, index

    def forward(self, inputs, device):
        p, index = inputs
        # The one-hot points are data (not differentiated), made on the device.
        x = device.xp.eye(4, dtype=self.dtype)[index.array]
        d = D.OneHotCategorical(p)
        return d.log_prob(x), d.entropy, d.mean, d.variance

    def forward_expected(self, inputs):
        p, index = inputs
        p = p.astype(np.float64)
        x = np.eye(4)[index]
        log_prob = (x * np.log(p)).sum(axis=-1)
        entropy = -(p * np.log(p)).sum(axis=-1)
        return tuple(np.asarray(v, dtype=self.dtype)
                     for v in (log_prob, entropy, p, p * (1 - p)))


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'one_hot': [False, True],
}))
class TestCategoricalKL(testing.FunctionTestCase):

    def generate_inputs(self):
        return (_simplex((3, 4)).astype(self.dtype), _simplex((3, 4)).astype(self.dtype))

    def forward(self, inputs, device):
        p1, p2 = inputs
        cls = D.OneHotCategorical if self.one_hot else D.Categorical
        return D.kl_divergence(cls(p1), cls(p2)),

    def forward_expected(self, inputs):
        p1, p2 = (a.astype(np.float64) for a in inputs)
        return np.asarray((p1 * np.log(p1 / p2)).sum(axis=-1), dtype=self.dtype),


def test_kl_with_logits_and_zeros():
    p1 = np.array([[0.0, 0.5, 0.5], [0.2, 0.3, 0.5]])
    logit2 = np.array([[0.1, -0.2, 1.0], [0.0, 0.0, 0.0]])
    kl = D.kl_divergence(D.Categorical(p1), D.Categorical(logit=logit2)).array
    p2 = special.softmax(logit2, axis=-1)
    np.testing.assert_allclose(kl, stats.entropy(p1, p2, axis=-1))
    d = D.Categorical(p1)
    np.testing.assert_allclose(D.cross_entropy(d, D.Categorical(logit=logit2)).array,
                               -(p1 * np.log(p2)).sum(axis=-1))


def test_kl_matches_monte_carlo():
    np.random.seed(0)
    p = D.Categorical(np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]))
    q = D.Categorical(logit=np.array([[0.0, 1.0, -1.0], [0.5, 0.5, 0.0]]))
    x = p.sample(100000)
    log_ratio = (p.log_prob(x) - q.log_prob(x)).array
    error = log_ratio.std(axis=0) / np.sqrt(len(log_ratio))
    assert np.all(np.abs(log_ratio.mean(axis=0) - D.kl_divergence(p, q).array) < 5 * error)


def test_sample_frequencies_and_reproducibility():
    p = np.array([[0.1, 0.2, 0.7], [0.5, 0.0, 0.5]], dtype=np.float32)
    d = D.Categorical(p)
    np.random.seed(11)
    s = d.sample(60000).array
    assert s.shape == (60000, 2) and s.dtype == np.int32
    for row in range(2):
        freq = np.bincount(s[:, row], minlength=3) / len(s)
        assert np.all(np.abs(freq - p[row]) < 5 * np.sqrt(p[row] * (1 - p[row]) / len(s)) + 1e-9)
    np.random.seed(11)
    np.testing.assert_array_equal(d.sample(60000).array, s)
    assert d.sample((2, 5)).shape == (2, 5, 2)
    np.testing.assert_array_equal(d.mode.array, [2, 0])
    assert d.batch_shape == (2,) and d.event_shape == ()


def test_one_hot_sample_frequencies():
    p = np.array([0.1, 0.2, 0.7], dtype=np.float32)
    d = D.OneHotCategorical(p)
    np.random.seed(12)
    s = d.sample(60000).array
    assert s.shape == (60000, 3) and s.dtype == np.float32
    np.testing.assert_array_equal(s.sum(axis=-1), 1.0)
    assert np.all(np.abs(s.mean(axis=0) - p) < 5 * np.sqrt(p * (1 - p) / len(s)))
    np.testing.assert_array_equal(d.mode.array, [0.0, 0.0, 1.0])
    assert d.batch_shape == () and d.event_shape == (3,)


def test_gradient_of_log_prob_by_logit():
    logit = catena.Variable(np.array([[0.3, -1.2, 0.5]]))
    catena.functions.sum(D.Categorical(logit=logit).log_prob(np.array([1]))).backward()
    np.testing.assert_allclose(logit.grad, np.eye(3)[[1]] - special.softmax(logit.array, -1))


def test_errors():
    p = np.array([[0.5, 0.5], [0.1, 0.9]])
    d = D.Categorical(p)
    with pytest.raises(TypeError, match='integer'):
        d.log_prob(np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match=r'\[0, 2\).*2'):
        d.log_prob(np.array([0, 2]))
    with pytest.raises(ValueError, match=r'batch_shape \(2,\).*\(3,\)'):
        d.log_prob(np.array([0, 1, 1]))
    with pytest.raises(ValueError, match='p.*logit'):
        D.Categorical(p, p)
    with pytest.raises(ValueError, match=r'p.*shape \(\)'):
        D.Categorical(np.float64(1.0))
    with pytest.raises(ValueError, match=r'event shape \(2,\).*\(2, 3\)'):
        D.OneHotCategorical(p).log_prob(np.zeros((2, 3)))
