"""Probability distributions (``catena.distributions``).

How to add a distribution (contributors):

- One module per family, ``catena/distributions/<name>.py`` (snake_case of
  Chainer's class name: ``log_normal.py`` for ``LogNormal``), holding the
  class, a subclass of :class:`~catena.distributions.distribution.Distribution`.
- ``__init__`` takes Chainer's arguments and turns array parameters into
  Variables with ``distribution._as_param(owner, name, value)`` (TypeError
  naming the argument unless floating point); check them with
  ``distribution._check_same(owner, a=..., b=...)`` (ValueError naming both
  on a shape or dtype mismatch) and ``distribution._one_of(owner, p=...,
  logit=...)`` for alternative parametrizations.
- Implement ``batch_shape``, ``event_shape``, ``params`` and what the family
  has of ``log_prob``, ``entropy``, ``mean``, ``variance``, ``mode``,
  ``support``, ``cdf``/``icdf``/..., ``sample_n(n)`` (returns shape ``(n,) +
  batch_shape + event_shape``; ``sample`` is derived). Build everything
  from ``catena.functions`` so it is differentiable; ``prob``, ``stddev``,
  ``survival_function`` and the log variants have defaults in the base.
- Sample with ``self.xp.random`` (the parameters' array module) in the
  parameters' dtype, reparameterized (``loc + scale * eps``) where Chainer
  is. Validate ``n`` with ``distribution._check_n(n)``.
- Register the KL divergences Chainer has in the same module with
  ``@register_kl(A, B)`` from ``catena.distributions.kl_divergence``.
- ``distributions/_utils.py`` has ``xlogx`` (``x log x``, 0 at 0).
- Export the class here (explicit import plus ``__all__``) and write
  ``tests/core/distributions/test_<name>.py`` against ``scipy.stats``.
"""

from __future__ import annotations

from catena.distributions import utils
from catena.distributions.bernoulli import Bernoulli
from catena.distributions.beta import Beta
from catena.distributions.categorical import Categorical
from catena.distributions.cauchy import Cauchy
from catena.distributions.chisquare import Chisquare
from catena.distributions.dirichlet import Dirichlet
from catena.distributions.distribution import Distribution
from catena.distributions.exponential import Exponential
from catena.distributions.gamma import Gamma
from catena.distributions.geometric import Geometric
from catena.distributions.gumbel import Gumbel
from catena.distributions.independent import Independent
from catena.distributions.kl_divergence import cross_entropy, kl_divergence, register_kl
from catena.distributions.laplace import Laplace
from catena.distributions.log_normal import LogNormal
from catena.distributions.multivariate_normal import MultivariateNormal
from catena.distributions.normal import Normal
from catena.distributions.one_hot_categorical import OneHotCategorical
from catena.distributions.pareto import Pareto
from catena.distributions.poisson import Poisson
from catena.distributions.uniform import Uniform

__all__ = [
    'Bernoulli',
    'Beta',
    'Categorical',
    'Cauchy',
    'Chisquare',
    'Dirichlet',
    'Distribution',
    'Exponential',
    'Gamma',
    'Geometric',
    'Gumbel',
    'Independent',
    'Laplace',
    'LogNormal',
    'MultivariateNormal',
    'Normal',
    'OneHotCategorical',
    'Pareto',
    'Poisson',
    'Uniform',
    'cross_entropy',
    'kl_divergence',
    'register_kl',
]
