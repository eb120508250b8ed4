"""``Distribution``: the interface every probability distribution implements."""

from __future__ import annotations

import math
import types
from typing import Any

import numpy

from catena import backend
from catena.functions.math.exponential import exp, log
from catena.functions.math.sqrt import sqrt
from catena.utils import _validate
from catena.variable import Variable, as_variable


class Distribution:
    """The base class of probability distributions.

    A distribution holds a batch of independent distributions of the same
    family: ``batch_shape`` is the shape of the batch and ``event_shape`` the
    shape of one draw (``()`` for a scalar distribution such as
    :class:`~catena.distributions.Normal`, ``(k,)`` for a vector one such as
    :class:`~catena.distributions.OneHotCategorical`). Its parameters are
    Variables; every quantity computed from them (``log_prob``, ``entropy``,
    ``mean``, ...) is a Variable that gradients flow back through, and
    reparameterizable distributions also sample differentiably.

    A subclass implements at least ``batch_shape``, ``event_shape``,
    ``params`` and whatever of ``log_prob``, ``sample_n``, ``entropy``,
    ``mean``, ``variance``, ``cdf``, ``icdf``, ... the family has; the rest
    raise :class:`NotImplementedError`. Defaults derived from other methods
    are provided here: ``prob`` from ``log_prob``, ``stddev`` from
    ``variance``, ``sample`` from ``sample_n``, ``survival_function`` from
    ``cdf`` and the logarithms of both.
    """

    # ------------------------------------------------------------------ shapes

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """The shape of the batch of distributions."""
        raise NotImplementedError(f'{type(self).__name__} does not define batch_shape')

    @property
    def event_shape(self) -> tuple[int, ...]:
        """The shape of one sample of one distribution of the batch."""
        raise NotImplementedError(f'{type(self).__name__} does not define event_shape')

    @property
    def params(self) -> dict[str, Variable]:
        """The parameters of the distribution, by name, as Variables."""
        raise NotImplementedError(f'{type(self).__name__} does not define params')

    @property
    def xp(self) -> types.ModuleType:
        """The array module of the parameters (``numpy`` on the CPU)."""
        for value in self.params.values():
            return backend.get_array_module(value)
        raise NotImplementedError(f'{type(self).__name__} has no parameters to take xp from')

    # ------------------------------------------------------------- functions

    def log_prob(self, x: Any) -> Variable:
        """The logarithm of the probability (density or mass) at ``x``.

        Args:
            x: A Variable or array of shape ``(...,) + batch_shape +
                event_shape`` (leading sample axes broadcast).

        Returns:
            Variable: An array of shape ``(...,) + batch_shape``.
        """
        raise NotImplementedError(f'{type(self).__name__} does not define log_prob')

    def prob(self, x: Any) -> Variable:
        """The probability (density or mass) at ``x``: ``exp(log_prob(x))``."""
        return exp(self.log_prob(x))

    def perplexity(self, x: Any) -> Variable:
        """The perplexity of the points ``x``: ``exp(-log_prob(x))``."""
        return exp(-self.log_prob(x))

    def cdf(self, x: Any) -> Variable:
        """The cumulative distribution function :math:`P(X \\le x)`."""
        if _overrides(self, 'log_cdf'):
            return exp(self.log_cdf(x))
        raise NotImplementedError(f'{type(self).__name__} does not define cdf')

    def log_cdf(self, x: Any) -> Variable:
        """The logarithm of the cumulative distribution function."""
        if _overrides(self, 'cdf'):
            return log(self.cdf(x))
        raise NotImplementedError(f'{type(self).__name__} does not define log_cdf')

    def survival_function(self, x: Any) -> Variable:
        """The survival function :math:`P(X > x) = 1 - \\mathrm{cdf}(x)`."""
        if _overrides(self, 'log_survival_function'):
            return exp(self.log_survival_function(x))
        return 1.0 - self.cdf(x)

    def log_survival_function(self, x: Any) -> Variable:
        """The logarithm of the survival function."""
        return log(self.survival_function(x))

    def icdf(self, x: Any) -> Variable:
        """The inverse of the cumulative distribution function (the quantile function).

        Args:
            x: Probabilities in :math:`[0, 1]`.
        """
        raise NotImplementedError(f'{type(self).__name__} does not define icdf')

    # ------------------------------------------------------------ statistics

    @property
    def entropy(self) -> Variable:
        """The entropy of each distribution of the batch."""
        raise NotImplementedError(f'{type(self).__name__} does not define entropy')

    @property
    def mean(self) -> Variable:
        """The mean of each distribution of the batch."""
        raise NotImplementedError(f'{type(self).__name__} does not define mean')

    @property
    def mode(self) -> Variable:
        """The mode of each distribution of the batch."""
        raise NotImplementedError(f'{type(self).__name__} does not define mode')

    @property
    def variance(self) -> Variable:
        """The variance of each distribution of the batch."""
        raise NotImplementedError(f'{type(self).__name__} does not define variance')

    @property
    def stddev(self) -> Variable:
        """The standard deviation: the square root of the variance."""
        return sqrt(self.variance)

    @property
    def covariance(self) -> Variable:
        """The covariance matrix of a distribution over vectors."""
        raise NotImplementedError(f'{type(self).__name__} does not define covariance')

    @property
    def support(self) -> str:
        """A description of the set of values the distribution takes, e.g. ``'real'``."""
        raise NotImplementedError(f'{type(self).__name__} does not define support')

    # --------------------------------------------------------------- sampling

    def sample_n(self, n: int) -> Variable:
        """Draws ``n`` samples from each distribution of the batch.

        Returns:
            Variable: An array of shape ``(n,) + batch_shape + event_shape``.
        """
        raise NotImplementedError(f'{type(self).__name__} does not define sample_n')

    def sample(self, sample_shape: Any = ()) -> Variable:
        """Draws samples of shape ``sample_shape`` from each distribution of the batch.

        The draws come from the random generator of the parameters' array
        module (``numpy.random`` on the CPU), so ``numpy.random.seed`` makes
        them reproducible.

        Args:
            sample_shape: An int or a tuple of ints.

        Returns:
            Variable: An array of shape ``sample_shape + batch_shape +
            event_shape``.
        """
        shape = _sample_shape(sample_shape)
        samples = self.sample_n(math.prod(shape))
        return samples.reshape(shape + tuple(self.batch_shape) + tuple(self.event_shape))

    # ------------------------------------------------------------------ misc

    def __copy__(self) -> Distribution:
        # A new distribution over the same parameter Variables.
        copied = type(self).__new__(type(self))
        copied.__dict__.update(self.__dict__)
        return copied

    def __repr__(self) -> str:
        try:
            params = self.params
        except NotImplementedError:
            return f'<{type(self).__name__}>'
        described = ', '.join(f'{name}: shape {value.shape}, dtype {value.dtype}'
                              for name, value in params.items())
        return f'{type(self).__name__}({described})'


# ------------------------------------------------------------- for subclasses

def _overrides(dist: Distribution, name: str) -> bool:
    return getattr(type(dist), name) is not getattr(Distribution, name)


def _sample_shape(sample_shape: Any) -> tuple[int, ...]:
    if isinstance(sample_shape, int) and not isinstance(sample_shape, bool):
        sample_shape = (sample_shape,)
    if (not isinstance(sample_shape, (tuple, list))
            or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0
                       for n in sample_shape)):
        raise ValueError(f'sample_shape must be an int or a tuple of non-negative ints; '
                         f'got {sample_shape!r}')
    return tuple(sample_shape)


def _check_n(n: Any) -> int:
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f'the number of samples n must be a non-negative int; got {n!r}')
    return n


def _as_param(owner: str, name: str, value: Any) -> Variable:
    """``value`` as a Variable of floating point type; raises naming ``owner`` and ``name``."""
    words = 'a floating point Variable or array'
    if isinstance(value, Distribution):
        raise TypeError(f'{owner}: {name} must be {words}; got a distribution, {value!r}')
    if isinstance(value, numpy.generic):
        value = numpy.asarray(value)
    try:
        variable = as_variable(value)
    except TypeError:
        note = (' (a Python number or list is not one: wrap it in numpy.array)'
                if isinstance(value, (int, float, list, tuple)) else '')
        raise TypeError(f'{owner}: {name} must be {words}{note}; got '
                        f'{_validate.show(value)}') from None
    dtype = getattr(variable.array, 'dtype', None)
    if dtype is None or dtype.kind != 'f':
        shown = _validate.show(value if variable.array is None else variable.array)
        raise TypeError(f'{owner}: {name} must be {words}; got {shown}')
    return variable


def _check_same(owner: str, **params: Variable) -> None:
    """Raises ValueError naming the parameters unless all share one shape and dtype."""
    (first, ref), *others = params.items()
    for name, value in others:
        if value.shape != ref.shape:
            raise ValueError(f'{owner}: {first} and {name} must have the same shape; got '
                             f'{first} of shape {ref.shape} and {name} of shape {value.shape}')
        if value.dtype != ref.dtype:
            raise ValueError(f'{owner}: {first} and {name} must have the same dtype; got '
                             f'{first} of dtype {ref.dtype} and {name} of dtype {value.dtype}')


def _one_of(owner: str, **given: Any) -> tuple[str, Any]:
    """The one parameter given among alternatives (``p`` or ``logit``); raises otherwise."""
    present = [(name, value) for name, value in given.items() if value is not None]
    if len(present) != 1:
        names = ' or '.join(f'`{name}`' for name in given)
        raise ValueError(f'{owner}: give exactly one of {names}; got '
                         f'{[name for name, _ in present] or "none"}')
    return present[0]
