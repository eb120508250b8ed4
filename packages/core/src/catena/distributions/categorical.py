"""``Categorical``: a distribution over the categories ``0, ..., k - 1``."""

from __future__ import annotations

import functools
from typing import Any

from catena import backend
from catena.distributions import distribution
from catena.distributions._utils import xlogx, zero_probabilities_allowed
from catena.distributions.kl_divergence import register_kl
from catena.functions.activation.log_softmax import log_softmax
from catena.functions.activation.softmax import softmax
from catena.functions.array.broadcast import broadcast_to
from catena.functions.array.reshape import reshape
from catena.functions.array.select_item import select_item
from catena.functions.math.exponential import log
from catena.functions.math.sum import sum as sum_
from catena.variable import Variable, as_array


def _check_vector(owner: str, name: str, value: Variable) -> None:
    if value.ndim < 1:
        raise ValueError(f'{owner}: {name} must have at least one axis (the categories, '
                         f'last); got shape {value.shape}')


def _sample_categories(p: Any, n: int) -> Any:
    """``n`` int32 draws per row of the probabilities ``p`` (categories last)."""
    xp = backend.get_array_module(p)
    k = p.shape[-1]
    cdf = xp.cumsum(p, axis=-1, dtype='float64')
    cdf /= cdf[..., -1:]
    u = xp.random.uniform(size=(n,) + p.shape[:-1] + (1,))
    # The category is the number of cumulative probabilities at or below u.
    counts = (cdf <= u).sum(axis=-1)
    return xp.minimum(counts, k - 1).astype('int32')


class Categorical(distribution.Distribution):
    """The categorical distribution over ``0, ..., k - 1``.

    .. math::
        P(x = i) = p_i

    Give the probabilities ``p`` (summing to 1 over the last axis) or
    unnormalized log probabilities ``logit`` (their softmax is used). The
    batch shape is the shape of ``p`` without its last axis; samples are
    ``int32`` category indices and are not differentiable.

    Args:
        p: The probabilities of the categories, last axis (a Variable or array
            of floating point type).
        logit: Log probabilities up to a constant, in place of ``p``.
    """

    def __init__(self, p: Any = None, logit: Any = None) -> None:
        owner = type(self).__name__
        name, value = distribution._one_of(owner, p=p, logit=logit)
        given = distribution._as_param(owner, name, value)
        _check_vector(owner, name, given)
        self._p_given = name == 'p'
        self._given = given

    @functools.cached_property
    def p(self) -> Variable:
        """The probabilities of the categories (last axis)."""
        return self._given if self._p_given else softmax(self._given, axis=-1)

    @functools.cached_property
    def log_p(self) -> Variable:
        """The log probabilities of the categories (last axis)."""
        if not self._p_given:
            return log_softmax(self._given, axis=-1)
        with zero_probabilities_allowed():
            return log(self._given)

    @property
    def n_categories(self) -> int:
        return int(self._given.shape[-1])

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self._given.shape[:-1])

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {'p': self.p} if self._p_given else {'logit': self._given}

    def log_prob(self, x: Any) -> Variable:
        x_array = as_array(x)
        if getattr(x_array, 'dtype', None) is None or x_array.dtype.kind not in 'iu':
            raise TypeError(f'{type(self).__name__}.log_prob: x must hold integer category '
                            f'indices; got dtype {getattr(x_array, "dtype", None)}')
        if x_array.dtype.kind == 'u':
            x_array = x_array.astype('int64')
        k = self.n_categories
        batch = self.batch_shape
        if x_array.shape[x_array.ndim - len(batch):] != batch or x_array.ndim < len(batch):
            raise ValueError(f'{type(self).__name__}.log_prob: x must have shape (...,) + '
                             f'batch_shape {batch}; got {x_array.shape}')
        if x_array.size and bool(((x_array < 0) | (x_array >= k)).any()):
            raise ValueError(f'{type(self).__name__}.log_prob: x must hold categories in '
                             f'[0, {k}); got values from {int(x_array.min())} to '
                             f'{int(x_array.max())}')
        log_p = broadcast_to(self.log_p, x_array.shape + (k,))
        picked = select_item(reshape(log_p, (-1, k)), x_array.reshape(-1))
        return reshape(picked, x_array.shape)

    @property
    def entropy(self) -> Variable:
        if self._p_given:
            return -sum_(xlogx(self.p), axis=-1)
        return -sum_(self.p * self.log_p, axis=-1)

    @property
    def mode(self) -> Variable:
        return Variable(self.xp.argmax(self.p.array, axis=-1).astype('int32'), requires_grad=False)

    @property
    def support(self) -> str:
        return f'{{0, 1, ..., {self.n_categories - 1}}}'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        return Variable(_sample_categories(self.p.array, n), requires_grad=False)


def _kl_categorical(p1: Variable, log_p1: Variable | None, log_p2: Variable) -> Variable:
    """sum p1 (log p1 - log p2) over the last axis; ``log_p1`` None: p1 may hold zeros."""
    p_log_p = xlogx(p1) if log_p1 is None else p1 * log_p1
    with zero_probabilities_allowed():
        return sum_(p_log_p - p1 * log_p2, axis=-1)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(dist1: Categorical, dist2: Categorical) -> Variable:
    return _kl_categorical(dist1.p, None if dist1._p_given else dist1.log_p, dist2.log_p)
