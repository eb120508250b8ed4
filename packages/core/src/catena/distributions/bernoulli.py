"""``Bernoulli``: the distribution of a binary variable."""

from __future__ import annotations

import functools
from typing import Any

from catena.distributions import distribution
from catena.distributions._utils import xlogx, zero_probabilities_allowed
from catena.distributions.kl_divergence import register_kl
from catena.functions.activation.sigmoid import sigmoid
from catena.functions.activation.softplus import softplus
from catena.functions.array.where import where
from catena.functions.math.exponential import log
from catena.functions.math.logarithm_1p import log1p
from catena.utils import force_array
from catena.variable import Variable, as_array


class Bernoulli(distribution.Distribution):
    """The Bernoulli distribution: 1 with probability :math:`p`, else 0.

    .. math::
        P(x) = p^x (1 - p)^{1 - x}, \\quad x \\in \\{0, 1\\}

    Give the probability ``p`` or its logit :math:`\\log\\frac{p}{1 - p}`
    (numerically safer near 0 and 1). Samples are ``int32`` zeros and ones
    and are not differentiable.

    Args:
        p: The probability of 1 (a Variable or array of floating point type).
        logit: The logit of ``p``, in place of ``p``.
        binary_check: If True, ``log_prob`` gives :math:`-\\infty` at points
            other than 0 and 1; if False, it evaluates the formula above at
            any ``x`` (no check, cheaper).
    """

    def __init__(self, p: Any = None, logit: Any = None, binary_check: bool = False) -> None:
        name, value = distribution._one_of('Bernoulli', p=p, logit=logit)
        given = distribution._as_param('Bernoulli', name, value)
        self._p_given = name == 'p'
        self._given = given
        self.binary_check = binary_check

    @functools.cached_property
    def p(self) -> Variable:
        """The probability of 1."""
        return self._given if self._p_given else sigmoid(self._given)

    @functools.cached_property
    def logit(self) -> Variable:
        """The logit of ``p``."""
        return log(self._given) - log1p(-self._given) if self._p_given else self._given

    @functools.cached_property
    def _log_p(self) -> Variable:
        if not self._p_given:
            return -softplus(-self._given)
        with zero_probabilities_allowed():
            return log(self._given)

    @functools.cached_property
    def _log_1mp(self) -> Variable:
        if not self._p_given:
            return -softplus(self._given)
        with zero_probabilities_allowed():
            return log1p(-self._given)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self._given.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {'logit': self.logit} if not self._p_given else {'p': self.p}

    def log_prob(self, x: Any) -> Variable:
        dtype = self._given.dtype
        x_array = as_array(x)
        if x_array.dtype != dtype:
            x_array = x_array.astype(dtype)
        xp = self.xp
        zero = xp.zeros((), dtype)
        # Keep 0 * log(0) out of the sums, so that p of 0 or 1 gives finite values.
        log_p, log_1mp = self._log_p, self._log_1mp
        with zero_probabilities_allowed():
            one_part = where(force_array(x_array != 0), log_p * x_array, zero)
            zero_part = where(force_array(x_array != 1), log_1mp * (1 - x_array), zero)
        lp = one_part + zero_part
        if self.binary_check:
            binary = force_array((x_array == 0) | (x_array == 1))
            lp = where(binary, lp, xp.full(binary.shape, -xp.inf, dtype))
        return lp

    @property
    def entropy(self) -> Variable:
        if self._p_given:
            return -(xlogx(self.p) + xlogx(1.0 - self.p))
        return -(self.p * self._log_p + (1.0 - self.p) * self._log_1mp)

    @property
    def mean(self) -> Variable:
        return self.p

    @property
    def mode(self) -> Variable:
        p = self.p.array
        return Variable((p > 0.5).astype(p.dtype), requires_grad=False)

    @property
    def variance(self) -> Variable:
        return self.p * (1.0 - self.p)

    @property
    def support(self) -> str:
        return '{0, 1}'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        p = self.p.array
        u = self.xp.random.uniform(size=(n,) + p.shape)
        return Variable((u < p).astype('int32'), requires_grad=False)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(dist1: Bernoulli, dist2: Bernoulli) -> Variable:
    p1 = dist1.p
    return (p1 * (dist1._log_p - dist2._log_p)
            + (1.0 - p1) * (dist1._log_1mp - dist2._log_1mp))


def _bernoulli_log_prob(logit: Any, x: Any, binary_check: bool = False) -> Variable:
    """The log-probability of ``x`` under the Bernoulli distribution of ``logit``."""
    return Bernoulli(logit=logit, binary_check=binary_check).log_prob(x)
