"""``Uniform``: the continuous uniform distribution."""

from __future__ import annotations

from typing import Any

from catena.distributions import distribution
from catena.distributions.kl_divergence import register_kl
from catena.functions.array.where import where
from catena.functions.math.clip import clip
from catena.functions.math.exponential import log
from catena.variable import Variable, as_array


class Uniform(distribution.Distribution):
    """The uniform distribution on :math:`[l, h]`.

    .. math::
        p(x) = \\frac{1}{h - l}, \\quad l \\le x \\le h

    Give either ``low`` and ``high``, or ``loc`` (:math:`l`) and ``scale``
    (:math:`h - l`). Sampling is reparameterized (:math:`l + (h - l)\\epsilon`
    with :math:`\\epsilon` uniform on :math:`[0, 1)`).

    Args:
        low: The lower end :math:`l` (a Variable or array of floating point type).
        high: The upper end :math:`h`, of the shape and dtype of ``low``.
        loc: The lower end, in place of ``low``.
        scale: The width :math:`h - l`, in place of ``high``.
    """

    def __init__(self, low: Any = None, high: Any = None, loc: Any = None,
                 scale: Any = None) -> None:
        by_ends = low is not None or high is not None
        by_width = loc is not None or scale is not None
        if by_ends == by_width or (by_ends and (low is None or high is None)) or (
                by_width and (loc is None or scale is None)):
            raise ValueError('Uniform: give either `low` and `high`, or `loc` and `scale`; got '
                             + str([name for name, value in (('low', low), ('high', high),
                                                             ('loc', loc), ('scale', scale))
                                    if value is not None]))
        if by_ends:
            self.low = distribution._as_param('Uniform', 'low', low)
            self.high = distribution._as_param('Uniform', 'high', high)
            distribution._check_same('Uniform', low=self.low, high=self.high)
            self.scale = self.high - self.low
        else:
            self.low = distribution._as_param('Uniform', 'loc', loc)
            self.scale = distribution._as_param('Uniform', 'scale', scale)
            distribution._check_same('Uniform', loc=self.low, scale=self.scale)
            self.high = self.low + self.scale
        self.loc = self.low

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.low.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {'low': self.low, 'high': self.high}

    def log_prob(self, x: Any) -> Variable:
        x_array = as_array(x)
        inside = (x_array >= self.low.array) & (x_array <= self.high.array)
        outside = self.xp.full(inside.shape, -self.xp.inf, self.low.dtype)
        return where(inside, -log(self.scale), outside)

    def cdf(self, x: Any) -> Variable:
        return clip((x - self.low) / self.scale, 0.0, 1.0)

    def icdf(self, x: Any) -> Variable:
        return self.low + self.scale * x

    @property
    def entropy(self) -> Variable:
        return log(self.scale)

    @property
    def mean(self) -> Variable:
        return self.low + 0.5 * self.scale

    @property
    def variance(self) -> Variable:
        return self.scale * self.scale / 12.0

    @property
    def stddev(self) -> Variable:
        return self.scale * (1.0 / 12.0 ** 0.5)

    @property
    def support(self) -> str:
        return '[low, high]'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        low = self.low.array
        eps = self.xp.random.uniform(size=(n,) + low.shape).astype(low.dtype, copy=False)
        return self.low + self.scale * eps


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(dist1: Uniform, dist2: Uniform) -> Variable:
    # Finite only where the support of dist1 lies inside that of dist2.
    inside = ((dist2.low.array <= dist1.low.array)
              & (dist1.high.array <= dist2.high.array))
    infinite = dist1.xp.full(inside.shape, dist1.xp.inf, dist1.low.dtype)
    return where(inside, log(dist2.scale / dist1.scale), infinite)
