"""The Distribution base, the KL registry and sampling on the parameters' device."""

# ruff: noqa: NPY002

import importlib

import numpy as np
import pytest

import catena
import catena.distributions as D
from catena.distributions import distribution


def _params(xp_send):
    f = np.float32
    p = np.array([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]], f)
    loc = np.array([0.0, 1.0], f)
    scale = np.array([1.0, 2.0], f)
    return {
        'Normal': (D.Normal, (loc, scale), {}),
        'LogNormal': (D.LogNormal, (loc, scale), {}),
        'Laplace': (D.Laplace, (loc, scale), {}),
        'Gumbel': (D.Gumbel, (loc, scale), {}),
        'Cauchy': (D.Cauchy, (loc, scale), {}),
        'Uniform': (D.Uniform, (loc, loc + scale), {}),
        'Exponential': (D.Exponential, (scale,), {}),
        'Bernoulli': (D.Bernoulli, (np.array([0.3, 0.9], f),), {}),
        'Categorical': (D.Categorical, (p,), {}),
        'OneHotCategorical': (D.OneHotCategorical, (p,), {}),
    }


NAMES = sorted(_params(None))


@pytest.mark.parametrize('name', NAMES)
@pytest.mark.parametrize('device', ['@numpy', '@fake'])
def test_sample_lives_on_the_parameters_device_and_is_reproducible(name, device):
    cls, args, kwargs = _params(None)[name]
    dev = catena.get_device(device)
    d = cls(*[dev.send(a) for a in args], **kwargs)
    np.random.seed(1)
    s = d.sample((4, 5))
    assert s.shape == (4, 5) + d.batch_shape + d.event_shape
    assert type(s.array) is type(dev.send(np.zeros(1)))
    np.random.seed(1)
    np.testing.assert_array_equal(dev.to_numpy(d.sample((4, 5)).array), dev.to_numpy(s.array))
    n = d.sample_n(3)
    assert n.shape == (3,) + d.batch_shape + d.event_shape
    lp = d.log_prob(s)
    assert lp.shape == (4, 5) + d.batch_shape
    assert type(lp.array) is type(s.array)
    assert np.isfinite(dev.to_numpy(lp.array)).all()


@pytest.mark.parametrize('name', NAMES)
def test_entropy_matches_minus_mean_log_prob(name):
    """A Monte Carlo check of every entropy against its own log_prob and sampler."""
    cls, args, kwargs = _params(None)[name]
    d = cls(*[a.astype(np.float64) for a in args], **kwargs)
    np.random.seed(2)
    log_prob = d.log_prob(d.sample(100000)).array
    error = log_prob.std(axis=0) / np.sqrt(len(log_prob))
    if name == 'Cauchy':  # log_prob has a finite variance even for the Cauchy
        error = np.maximum(error, 1e-3)
    assert np.all(np.abs(-log_prob.mean(axis=0) - d.entropy.array) < 5 * error + 1e-9)


def test_base_defaults_and_errors():
    class Flat(distribution.Distribution):
        """A density of 1/2 on [0, 2): only log_prob and cdf."""

        def __init__(self):
            self.low = catena.Variable(np.zeros(3))

        @property
        def params(self):
            return {'low': self.low}

        def log_prob(self, x):
            return catena.functions.log(x * 0 + 0.5)

        def cdf(self, x):
            return catena.as_variable(x) * 0.5

    d = Flat()
    x = np.array([0.5, 1.0, 1.5])
    np.testing.assert_allclose(d.prob(x).array, 0.5)
    np.testing.assert_allclose(d.perplexity(x).array, 2.0)
    np.testing.assert_allclose(d.log_cdf(x).array, np.log(x / 2))
    np.testing.assert_allclose(d.survival_function(x).array, 1 - x / 2)
    np.testing.assert_allclose(d.log_survival_function(x).array, np.log1p(-x / 2))
    assert d.xp is np
    for name in ('batch_shape', 'event_shape', 'entropy', 'mean', 'mode', 'variance',
                 'stddev', 'support', 'covariance'):
        with pytest.raises(NotImplementedError, match='Flat does not define'):
            getattr(d, name)
    with pytest.raises(NotImplementedError, match='Flat does not define icdf'):
        d.icdf(x)
    with pytest.raises(NotImplementedError, match='sample_n'):
        d.sample(3)
    with pytest.raises(NotImplementedError, match='log_prob'):
        distribution.Distribution().log_prob(x)
    with pytest.raises(NotImplementedError, match='cdf'):
        distribution.Distribution().cdf(x)
    assert repr(distribution.Distribution()) == '<Distribution>'


class _MyNormal(D.Normal):
    pass


class _MyOtherNormal(_MyNormal):
    pass


def test_kl_lookup_follows_the_class_hierarchy():
    a = _MyOtherNormal(np.zeros(2), np.ones(2))
    b = D.Normal(np.ones(2), np.ones(2))
    # Inherited from the (Normal, Normal) registration.
    np.testing.assert_allclose(D.kl_divergence(a, b).array, 0.5)

    @D.register_kl(_MyNormal, D.Normal)
    def _kl_mine(dist1, dist2):
        return catena.Variable(np.full(2, 7.0))

    try:
        assert D.kl_divergence(a, b).array.tolist() == [7.0, 7.0]
        # The exact pair wins over the nearer ancestor.
        D.register_kl(_MyOtherNormal, D.Normal)(lambda p, q: catena.Variable(np.zeros(2)))
        assert D.kl_divergence(a, b).array.tolist() == [0.0, 0.0]
        # (Normal, _MyNormal) is not registered: (Normal, Normal) serves it.
        np.testing.assert_allclose(D.kl_divergence(b, a).array, 0.5)
    finally:
        registry = importlib.import_module('catena.distributions.kl_divergence')
        registry._KL_REGISTRY.pop((_MyNormal, D.Normal))
        registry._KL_REGISTRY.pop((_MyOtherNormal, D.Normal))
    np.testing.assert_allclose(D.kl_divergence(a, b).array, 0.5)


def test_register_kl_checks_its_arguments():
    with pytest.raises(TypeError, match='Dist1'):
        D.register_kl(int, D.Normal)
    with pytest.raises(TypeError, match='Dist2'):
        D.register_kl(D.Normal, 'Normal')


def test_sample_n_checks_n():
    d = D.Normal(np.zeros(2), np.ones(2))
    with pytest.raises(ValueError, match='n must be a non-negative int'):
        d.sample_n(-1)
    with pytest.raises(ValueError, match='sample_shape'):
        d.sample((2, 'a'))
