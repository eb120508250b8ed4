"""``OneHotCategorical``: a categorical distribution over one-hot vectors."""

from __future__ import annotations

from typing import Any

from catena.distributions import distribution
from catena.distributions._utils import xlogx, zero_probabilities_allowed
from catena.distributions.categorical import _check_vector, _kl_categorical, _sample_categories
from catena.distributions.kl_divergence import register_kl
from catena.functions.array.where import where
from catena.functions.math.exponential import log
from catena.functions.math.sum import sum as sum_
from catena.utils import force_array
from catena.variable import Variable, as_array


class OneHotCategorical(distribution.Distribution):
    """The categorical distribution with one-hot vectors as values.

    .. math::
        P(x) = \\prod_i p_i^{x_i}, \\quad x \\in \\{e_0, \\dots, e_{k-1}\\}

    The batch shape is the shape of ``p`` without its last axis, which is
    the event shape. Samples are one-hot vectors in the dtype of ``p`` and
    are not differentiable.

    Args:
        p: The probabilities of the categories, last axis (a Variable or array
            of floating point type).
    """

    def __init__(self, p: Any) -> None:
        self.p = distribution._as_param('OneHotCategorical', 'p', p)
        _check_vector('OneHotCategorical', 'p', self.p)

    @property
    def log_p(self) -> Variable:
        """The log probabilities of the categories (last axis)."""
        with zero_probabilities_allowed():
            return log(self.p)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.p.shape[:-1])

    @property
    def event_shape(self) -> tuple[int, ...]:
        return tuple(self.p.shape[-1:])

    @property
    def params(self) -> dict[str, Variable]:
        return {'p': self.p}

    def log_prob(self, x: Any) -> Variable:
        x_array = as_array(x)
        if x_array.shape[-1:] != self.event_shape:
            raise ValueError(f'OneHotCategorical.log_prob: x must end with the event shape '
                             f'{self.event_shape}; got shape {x_array.shape}')
        if x_array.dtype != self.p.dtype:
            x = x_array = x_array.astype(self.p.dtype)
        # Categories not taken add nothing, even where their probability is 0.
        taken = force_array(x_array != 0)
        log_p = self.log_p
        with zero_probabilities_allowed():
            terms = where(taken, log_p * x, self.xp.zeros((), self.p.dtype))
        return sum_(terms, axis=-1)

    @property
    def entropy(self) -> Variable:
        return -sum_(xlogx(self.p), axis=-1)

    @property
    def mean(self) -> Variable:
        return self.p

    @property
    def mode(self) -> Variable:
        p = self.p.array
        xp = self.xp
        hot = xp.argmax(p, axis=-1)
        return Variable(xp.eye(p.shape[-1], dtype=p.dtype)[hot], requires_grad=False)

    @property
    def variance(self) -> Variable:
        return self.p * (1.0 - self.p)

    @property
    def support(self) -> str:
        return f'one-hot vectors of length {self.p.shape[-1]}'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        p = self.p.array
        indices = _sample_categories(p, n)
        return Variable(self.xp.eye(p.shape[-1], dtype=p.dtype)[indices], requires_grad=False)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_one_hot_categorical(dist1: OneHotCategorical,
                            dist2: OneHotCategorical) -> Variable:
    return _kl_categorical(dist1.p, None, dist2.log_p)
