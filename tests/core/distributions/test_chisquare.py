"""Chisquare: densities and statistics against scipy.stats, sampling, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest
from scipy import special, stats

import catena
import catena.functions as F
from catena import testing
from catena.distributions.chisquare import Chisquare
from catena.distributions.kl_divergence import kl_divergence


def _as(dtype, *values):
    return tuple(np.asarray(v, dtype=dtype) for v in values)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shape': [(), (3,), (2, 3)],
}))
class TestChisquare(testing.FunctionTestCase):

    def generate_inputs(self):
        k = np.random.uniform(0.5, 6, self.shape).astype(self.dtype)
        x = np.random.uniform(0.2, 5, self.shape).astype(self.dtype)
        return k, x

    def forward(self, inputs, device):
        k, x = inputs
        d = Chisquare(k)
        return d.log_prob(x), d.prob(x), d.entropy, d.mean, d.variance, d.stddev

    def forward_expected(self, inputs):
        k, x = (v.astype(np.float64) for v in inputs)
        r = stats.chi2(k)
        return _as(self.dtype, r.logpdf(x), r.pdf(x), r.entropy(), r.mean(), r.var(), r.std())


def test_sample_moments_and_reproducibility():
    k = np.array([0.5, 3.0, 10.0], dtype=np.float32)
    d = Chisquare(k)
    np.random.seed(2)
    s = d.sample((50000, 2))
    assert s.shape == (50000, 2, 3) and s.dtype == np.float32 and not s.requires_grad
    s = s.array.reshape(-1, 3)
    assert np.all(s >= 0)
    assert np.all(np.abs(s.mean(axis=0) - k) < 5 * np.sqrt(2 * k / len(s)))
    np.testing.assert_allclose(s.var(axis=0), 2 * k, rtol=0.05)
    np.random.seed(2)
    np.testing.assert_array_equal(d.sample((50000, 2)).array.reshape(-1, 3), s)


def test_log_prob_outside_and_at_zero():
    k = np.array([1.0, 2.0, 3.0])
    d = Chisquare(k)
    for x in ([0.0, 0.0, 0.0], [-1.0, -0.5, -2.0]):
        with np.errstate(divide='ignore'):
            expected = stats.chi2.logpdf(x, k)
        np.testing.assert_allclose(d.log_prob(np.array(x)).array, expected)


def test_gradient_of_log_prob():
    k = catena.Variable(np.array([1.5, 4.0]))
    x = np.array([0.7, 3.0])
    F.sum(Chisquare(k).log_prob(x)).backward()
    expected = 0.5 * (np.log(x) - np.log(2.0) - special.digamma(k.array / 2))
    np.testing.assert_allclose(k.grad, expected)


def test_properties_and_no_kl():
    d = Chisquare(np.array([1.0, 5.0]))
    assert d.batch_shape == (2,) and d.event_shape == ()
    assert d.support == 'positive'
    assert set(d.params) == {'k'}
    np.testing.assert_allclose(d.mode.array, [0.0, 3.0])
    # Chainer registers no KL divergence for Chisquare.
    with pytest.raises(NotImplementedError, match='Chisquare'):
        kl_divergence(d, d)


def test_bad_parameters():
    with pytest.raises(TypeError, match='k'):
        Chisquare(np.array([1, 2]))
    with pytest.raises(ValueError, match='sample_shape'):
        Chisquare(np.ones(2)).sample((2, -1))
