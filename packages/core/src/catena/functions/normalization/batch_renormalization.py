"""``batch_renormalization`` and ``fixed_batch_renormalization``."""

from __future__ import annotations

import warnings
from typing import Any

from catena import backend
from catena.configuration import using_config
from catena.function_node import FunctionNode
from catena.functions.normalization import _common
from catena.functions.normalization.batch_normalization import (
    BatchNormalizationGrad,
    fixed_batch_normalization,
)
from catena.utils import type_check
from catena.variable import Variable


class BatchRenormalizationFunction(FunctionNode):
    """Batch renormalization: batch normalization corrected towards the running statistics.

    With the batch's ``mean`` and ``std = sqrt(var + eps)`` and
    ``sigma = sqrt(running_var + eps)``, it computes
    ``y = gamma * ((x - mean) / std * r + d) + beta`` where
    ``r = clip(std / sigma, 1 / rmax, rmax)`` and
    ``d = clip((mean - running_mean) / sigma, -dmax, dmax)`` are treated as
    constants in backprop.

    Attributes:
        r: The correction ``r`` of the last forward (per channel).
        d: The correction ``d`` of the last forward (per channel).
    """

    r: Any = None
    d: Any = None

    def __init__(self, eps: float = 2e-5, mean: Any = None, var: Any = None,
                 decay: float = 0.9, rmax: float = 1, dmax: float = 0,
                 update_statistics: bool = True) -> None:
        self._running_mean = _common.raw_array(mean)
        self._running_var = _common.raw_array(var)
        self.eps = eps
        self.decay = decay
        self.rmax = rmax
        self.dmax = dmax
        self.update_statistics = update_statistics

    @property
    def running_mean(self) -> Any:
        """The running mean (deprecated: pass ``update_statistics=True`` instead)."""
        warnings.warn('The attributes of BatchRenormalizationFunction are deprecated; pass '
                      'update_statistics=True to batch_renormalization to update the running '
                      'statistics in place.', DeprecationWarning, stacklevel=2)
        return self._running_mean

    @property
    def running_var(self) -> Any:
        """The running variance (deprecated, as :attr:`running_mean`)."""
        warnings.warn('The attributes of BatchRenormalizationFunction are deprecated; pass '
                      'update_statistics=True to batch_renormalization to update the running '
                      'statistics in place.', DeprecationWarning, stacklevel=2)
        return self._running_var

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'gamma', 'beta'))
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            gamma_type.dtype.kind == 'f',
            gamma_type.dtype == beta_type.dtype,
            gamma_type.shape == beta_type.shape,
        )
        _common.expect_channel_shapes(x_type, gamma_type, None, 'batch_renormalization')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        axis, key_axis = _common.resolve_axes(x.ndim, gamma.ndim, None, 'batch_renormalization')
        view = self.view = _common.view_for(x.shape, axis, key_axis)
        dtype = _common.compute_dtype(x.dtype, gamma.dtype)
        running_mean, running_var = self._running_mean, self._running_var
        for name, running in (('running_mean', running_mean), ('running_var', running_var)):
            if running.shape != gamma.shape:
                raise ValueError(f'batch_renormalization: {name} has shape {running.shape}; '
                                 f'expected the shape of gamma, {gamma.shape}')
        y, mean, var = _common.centered_statistics(xp, view.to3d(x), dtype)
        inv_std = _common.inverse_std(xp, var, self.eps)
        inv_sigma = _common.inverse_std(xp, running_var.reshape(-1).astype(dtype), self.eps)
        r = xp.clip(inv_sigma / inv_std, 1.0 / self.rmax, self.rmax)
        d = xp.clip((mean - running_mean.reshape(-1)) * inv_sigma, -self.dmax, self.dmax)
        gamma_flat = gamma.reshape(-1).astype(dtype, copy=False)
        _common.channel_op(xp, xp.multiply, y, gamma_flat * r * inv_std, y)
        _common.channel_op(xp, xp.add, y, gamma_flat * d + beta.reshape(-1), y)
        self.mean, self.inv_std = mean, inv_std
        self.r, self.d = r.astype(dtype), d.astype(dtype)
        if self.update_statistics:
            m = view.m
            _common.update_running(xp, running_mean, mean.reshape(gamma.shape), self.decay)
            _common.update_running(xp, running_var, var.reshape(gamma.shape), self.decay,
                                   m / max(m - 1.0, 1.0))
        return view.from3d(y.astype(x.dtype, copy=False)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        # y is batch normalization with gamma * r as the scale and gamma * d + beta
        # as the shift, r and d being constants.
        x, gamma = self.get_retained_inputs()
        r = self.r.reshape(gamma.shape)
        d = self.d.reshape(gamma.shape)
        grad = BatchNormalizationGrad(self.eps, self.view, self.mean, self.inv_std)
        gx, ggamma_r, gbeta = grad.apply((x, gamma * r, grad_outputs[0]))
        return gx, ggamma_r * r + gbeta * d, gbeta


def batch_renormalization(x: Any, gamma: Any, beta: Any, rmax: float, dmax: float,
                          eps: float = 2e-5, running_mean: Any = None, running_var: Any = None,
                          decay: float = 0.9, update_statistics: bool = False) -> Variable:
    """Batch renormalization.

    Batch normalization whose output is corrected towards what the running
    statistics would give, so that training and inference behave alike:
    ``y = gamma * ((x - mean) / std * r + d) + beta`` with the batch's
    ``mean`` and ``std = sqrt(var + eps)``, ``sigma = sqrt(running_var + eps)``,
    ``r = clip(std / sigma, 1 / rmax, rmax)`` and
    ``d = clip((mean - running_mean) / sigma, -dmax, dmax)``; ``r`` and ``d``
    get no gradient. The axes are those of :func:`batch_normalization`'s
    default.

    As in Chainer, the running averages track the variance (not the standard
    deviation) with Bessel's correction, and they are only updated (in place)
    when ``update_statistics`` is True.

    Args:
        x: The input Variable or array.
        gamma: The scale, of the channel shape.
        beta: The shift.
        rmax: The bound of ``r`` (at least 1).
        dmax: The bound of ``d`` (at least 0).
        eps: Added to the variances.
        running_mean: The running mean (required).
        running_var: The running variance (required).
        decay: The decay rate of the running averages.
        update_statistics: Update ``running_mean`` and ``running_var`` in place.

    Returns:
        Variable: The output, of x's shape and dtype.

    .. admonition:: Example

        >>> x = np.array([[1., 2.], [3., 6.]], dtype=np.float32)
        >>> one, zero = np.ones(2, np.float32), np.zeros(2, np.float32)
        >>> F.batch_renormalization(x, one, zero, rmax=1, dmax=0, eps=0,
        ...                         running_mean=zero, running_var=one).array
        array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
    """
    if running_mean is None:
        raise TypeError('batch_renormalization: running_mean is required')
    if running_var is None:
        raise TypeError('batch_renormalization: running_var is required')
    node = BatchRenormalizationFunction(eps, running_mean, running_var, decay, rmax, dmax,
                                        update_statistics)
    return node.apply((x, gamma, beta))[0]


def fixed_batch_renormalization(x: Any, gamma: Any, beta: Any, mean: Any, var: Any,
                                eps: float = 2e-5) -> Variable:
    """Batch renormalization in test mode: :func:`fixed_batch_normalization` (deprecated).

    Args:
        x: The input Variable or array.
        gamma: The scale.
        beta: The shift.
        mean: The mean to subtract.
        var: The variance to divide by.
        eps: Added to the variance.

    Returns:
        Variable: The output, of x's shape and dtype.
    """
    warnings.warn('fixed_batch_renormalization is deprecated; use fixed_batch_normalization',
                  DeprecationWarning, stacklevel=2)
    with using_config('train', False):
        return fixed_batch_normalization(x, gamma, beta, mean, var, eps)
