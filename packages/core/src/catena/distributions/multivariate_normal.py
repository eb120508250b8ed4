"""``MultivariateNormal``: the normal distribution over vectors, by its Cholesky factor."""

from __future__ import annotations

import functools
import math
from typing import Any

from catena import backend
from catena.distributions import _support, distribution
from catena.distributions.kl_divergence import register_kl
from catena.function_node import FunctionNode
from catena.functions.array.diagonal import diagonal
from catena.functions.array.expand_dims import expand_dims
from catena.functions.array.squeeze import squeeze
from catena.functions.array.swapaxes import swapaxes
from catena.functions.math.exponential import log
from catena.functions.math.matmul import matmul
from catena.functions.math.sum import sum as sum_
from catena.utils import force_array, type_check
from catena.variable import Variable, as_array

_LOG_2PI = math.log(2.0 * math.pi)


class TriangularInv(FunctionNode):
    """Inverse of a (stack of) lower triangular matrices, last two axes.

    The upper triangle of the input is ignored (taken as zero), and so gets
    no gradient.
    """

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim >= 2,
                          x_type.shape[-1] == x_type.shape[-2])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        # The inverse of a lower triangular matrix is lower triangular: tril
        # clears the rounding noise that a general inverse leaves above it.
        return force_array(xp.tril(xp.linalg.inv(xp.tril(x)))),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        xp = y.xp
        d = y.shape[-1]
        lower = xp.tril(xp.ones((d, d), dtype=y.dtype))
        # d(X^-1) = -X^-1 dX X^-1, so gX = -X^-T gY X^-T, on the lower triangle.
        return -matmul(matmul(y, gy, transa=True), y, transb=True) * lower,


def _triangular_inv(x: Any, lower: bool = True) -> Variable:
    """The inverse of a (stack of) lower, or with ``lower=False`` upper, triangular matrices."""
    if lower:
        return TriangularInv().apply((x,))[0]
    return swapaxes(TriangularInv().apply((swapaxes(x, -1, -2),))[0], -1, -2)


def _half_logdet(scale_tril: Variable) -> Variable:
    """:math:`\\frac12\\log\\det\\Sigma = \\sum_i \\log|L_{ii}|`."""
    return sum_(log(abs(diagonal(scale_tril, axis1=-2, axis2=-1))), axis=-1)


class MultivariateNormal(distribution.Distribution):
    """The multivariate normal distribution :math:`N(\\mu, LL^\\top)`.

    .. math::
        p(x) = \\frac{1}{(2\\pi)^{d/2}|\\det L|}
            \\exp\\left(-\\frac12\\|L^{-1}(x - \\mu)\\|^2\\right)

    The covariance :math:`\\Sigma = LL^\\top` is given by its lower
    triangular Cholesky factor :math:`L` (``scale_tril``); the entries above
    its diagonal are ignored. The last axis of ``loc`` is the event axis, the
    others are the batch. Sampling is reparameterized
    (:math:`\\mu + L\\epsilon`), so samples are differentiable in both
    parameters.

    Args:
        loc: The mean :math:`\\mu`, of shape ``batch_shape + (d,)`` (a
            Variable or array of floating point type).
        scale_tril: The Cholesky factor :math:`L` of the covariance, of shape
            ``batch_shape + (d, d)`` and the dtype of ``loc`` (required).
    """

    def __init__(self, loc: Any, scale_tril: Any = None) -> None:
        if scale_tril is None:
            raise ValueError('MultivariateNormal: scale_tril must be given (the lower '
                             'triangular Cholesky factor of the covariance)')
        self.loc = distribution._as_param('MultivariateNormal', 'loc', loc)
        self.scale_tril = distribution._as_param('MultivariateNormal', 'scale_tril',
                                                 scale_tril)
        loc_shape, tril_shape = self.loc.shape, self.scale_tril.shape
        if self.loc.ndim < 1:
            raise ValueError('MultivariateNormal: loc must have at least one axis (the event '
                             f'axis, last); got shape {loc_shape}')
        if tril_shape != loc_shape + loc_shape[-1:]:
            raise ValueError(f'MultivariateNormal: scale_tril must have the shape of loc plus '
                             f'one axis of length d, {loc_shape + loc_shape[-1:]}; got loc of '
                             f'shape {loc_shape} and scale_tril of shape {tril_shape}')
        if self.loc.dtype != self.scale_tril.dtype:
            raise ValueError(f'MultivariateNormal: loc and scale_tril must have the same dtype; '
                             f'got loc of dtype {self.loc.dtype} and scale_tril of dtype '
                             f'{self.scale_tril.dtype}')

    @property
    def d(self) -> int:
        """The dimension :math:`d` of the events."""
        return int(self.loc.shape[-1])

    @functools.cached_property
    def _tril(self) -> Variable:
        xp = self.xp
        return self.scale_tril * xp.tril(xp.ones((self.d, self.d), dtype=self.loc.dtype))

    @functools.cached_property
    def _tril_inv(self) -> Variable:
        return _triangular_inv(self.scale_tril)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.loc.shape[:-1])

    @property
    def event_shape(self) -> tuple[int, ...]:
        return tuple(self.loc.shape[-1:])

    @property
    def params(self) -> dict[str, Variable]:
        return {'loc': self.loc, 'scale_tril': self.scale_tril}

    def log_prob(self, x: Any) -> Variable:
        x = _support.as_value(x, self.loc)
        shape = as_array(x).shape
        if shape[-1:] != self.event_shape:
            raise ValueError(f'MultivariateNormal.log_prob: x must end with the event shape '
                             f'{self.event_shape}; got shape {shape}')
        z = squeeze(matmul(self._tril_inv, expand_dims(x - self.loc, -1)), -1)
        return (-0.5 * sum_(z * z, axis=-1) - _half_logdet(self.scale_tril)
                - 0.5 * self.d * _LOG_2PI)

    @property
    def entropy(self) -> Variable:
        return _half_logdet(self.scale_tril) + 0.5 * self.d * (1.0 + _LOG_2PI)

    @property
    def covariance(self) -> Variable:
        """:math:`\\Sigma = LL^\\top`, of shape ``batch_shape + (d, d)``."""
        return matmul(self._tril, self._tril, transb=True)

    @property
    def mean(self) -> Variable:
        return self.loc

    @property
    def mode(self) -> Variable:
        return self.loc

    @property
    def variance(self) -> Variable:
        """The diagonal of the covariance."""
        return sum_(self._tril * self._tril, axis=-1)

    @property
    def support(self) -> str:
        return 'real'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        loc = self.loc.array
        eps = self.xp.random.standard_normal((n,) + loc.shape + (1,))
        eps = eps.astype(loc.dtype, copy=False)
        return self.loc + squeeze(matmul(self._tril, eps), -1)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(dist1: MultivariateNormal,
                                              dist2: MultivariateNormal) -> Variable:
    if dist1.event_shape != dist2.event_shape:
        raise ValueError(f'kl_divergence: the MultivariateNormal distributions must have the '
                         f'same event shape; got {dist1.event_shape} and {dist2.event_shape}')
    inv2 = dist2._tril_inv
    # tr(S2^-1 S1) = ||L2^-1 L1||_F^2 and the Mahalanobis term is ||L2^-1 (mu2 - mu1)||^2.
    m = matmul(inv2, dist1._tril)
    trace = sum_(m * m, axis=(-2, -1))
    z = squeeze(matmul(inv2, expand_dims(dist2.loc - dist1.loc, -1)), -1)
    mahalanobis = sum_(z * z, axis=-1)
    return (0.5 * (trace + mahalanobis - float(dist1.d))
            + _half_logdet(dist2.scale_tril) - _half_logdet(dist1.scale_tril))
