"""``batch_normalization`` and ``fixed_batch_normalization``.

Training mode normalizes with the statistics of the batch and updates the
running averages in place; test mode (``fixed_batch_normalization``) uses
given statistics. Statistics of float16 inputs are computed in float32.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.broadcast import broadcast_to
from catena.functions.array.reshape import reshape
from catena.functions.math.sum import sum as _sum
from catena.functions.normalization import _common
from catena.utils import type_check
from catena.variable import Variable

_AXES = (0, 2)


def _k(v: Any, k: int) -> Variable:
    """A per-channel (K,) Variable shaped to broadcast against (A, K, B)."""
    return reshape(v, (1, k, 1))


def _plus(total: Any, term: Any) -> Any:
    """``total + term`` where either may be None (a zero)."""
    if term is None:
        return total
    return term if total is None else total + term


class BatchNormalization(FunctionNode):
    """Batch normalization with the batch's statistics (training mode).

    Args:
        eps: Added to the variance.
        mean: The running mean to update in place, or None.
        var: The running variance to update in place, or None.
        decay: The decay rate of the running averages.
        axis: The axes to reduce (None: all but the channel axes).

    Attributes:
        view: The :class:`~catena.functions.normalization._common.View` of x,
            set by forward.
        mean: The batch mean (per channel, flattened, in the compute dtype:
            float32 at least) after forward.
        inv_std: ``1 / sqrt(var + eps)`` of the batch, likewise.

    A kernel that replaces :meth:`forward` for a device must set ``axis``,
    ``key_axis``, ``view``, ``mean`` and ``inv_std`` too, or register
    :class:`BatchNormalizationGrad` as well: :meth:`backward` reads them.
    """

    mean: Any = None
    inv_std: Any = None
    warn_small_batch = True

    def __init__(self, eps: float = 2e-5, mean: Any = None, var: Any = None,
                 decay: float = 0.9, axis: Any = None) -> None:
        if (mean is None) != (var is None):
            raise ValueError('batch_normalization: running_mean and running_var must be given '
                             'together; got only '
                             f'{"running_mean" if var is None else "running_var"}')
        self.running_mean = _common.raw_array(mean)
        self.running_var = _common.raw_array(var)
        self.eps = eps
        self.decay = decay
        self.axis = _common.check_axis_argument(axis, 'batch_normalization')

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'gamma', 'beta'))
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            gamma_type.dtype.kind == 'f',
            gamma_type.dtype == beta_type.dtype,
            gamma_type.shape == beta_type.shape,
        )
        _common.expect_channel_shapes(x_type, gamma_type, self.axis, 'batch_normalization')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        self.axis, self.key_axis = _common.resolve_axes(
            x.ndim, gamma.ndim, self.axis, 'batch_normalization')
        view = self.view = _common.view_for(x.shape, self.axis, self.key_axis)
        if view.m <= 1 and self.warn_small_batch:
            warnings.warn(
                f'batch_normalization got x of shape {x.shape}, which has a single element '
                f'along the normalized axes {self.axis}: the output is all beta. In training '
                'this usually means a batch of one sample (or evaluation run with '
                'catena.config.train=True).', UserWarning, stacklevel=4)
        dtype = _common.compute_dtype(x.dtype, gamma.dtype)
        x3 = view.to3d(x)
        shift = beta.reshape(-1).astype(dtype, copy=False)
        loops = _common.compiled_loops(x3, dtype)
        if loops is not None:
            mean, var = loops.statistics(x3)
        else:
            y, mean, var = _common.centered_statistics(xp, x3, dtype)  # y holds x - mean
        inv_std = _common.inverse_std(xp, var, self.eps)
        scale = gamma.reshape(-1).astype(dtype, copy=False) * inv_std
        if loops is not None:
            y = loops.normalize(x3, mean, scale, numpy.ascontiguousarray(shift))
        else:
            _common.channel_op(xp, xp.multiply, y, scale, y)
            _common.channel_op(xp, xp.add, y, shift, y)
        self.mean, self.inv_std = mean, inv_std
        if self.running_mean is not None:
            self._update_running(xp, gamma, mean, var, view.m)
        return view.from3d(y.astype(x.dtype, copy=False)),

    def _update_running(self, xp: Any, gamma: Any, mean: Any, var: Any, m: int) -> None:
        for name, running in (('running_mean', self.running_mean),
                              ('running_var', self.running_var)):
            if running.shape != gamma.shape:
                raise ValueError(f'batch_normalization: {name} has shape {running.shape}; '
                                 f'expected the shape of gamma, {gamma.shape}')
        _common.update_running(xp, self.running_mean, mean.reshape(gamma.shape), self.decay)
        # The running variance is an unbiased estimate: m / (m - 1) times the batch's.
        _common.update_running(xp, self.running_var, var.reshape(gamma.shape), self.decay,
                               m / max(m - 1.0, 1.0))

    def grad_node(self) -> BatchNormalizationGrad:
        """The node computing this node's gradients from ``(x, gamma, gy)``."""
        return BatchNormalizationGrad(self.eps, self.view, self.mean, self.inv_std)

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, gamma = self.get_retained_inputs()
        return self.grad_node().apply((x, gamma, grad_outputs[0]))


class BatchNormalizationGrad(FunctionNode):
    """The gradients of :class:`BatchNormalization`: ``(x, gamma, gy) -> (gx, ggamma, gbeta)``.

    With ``r = inv_std`` and ``x_hat = (x - mean) * r``::

        gbeta = sum(gy),  ggamma = sum(gy * x_hat),
        gx = gamma * r * (gy - (x_hat * ggamma + gbeta) / m)
    """

    def __init__(self, eps: float, view: _common.View, mean: Any, inv_std: Any) -> None:
        self.eps = eps
        self.view = view
        self.mean = mean
        self.inv_std = inv_std

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        self.retain_outputs((1, 2))
        x, gamma, gy = inputs
        xp = backend.get_array_module(x)
        view, mean, inv_std = self.view, self.mean, self.inv_std
        dtype = mean.dtype
        inv_m = dtype.type(1.0 / max(view.m, 1))
        gy3 = view.to3d(gy)
        if gy3.dtype != dtype:
            gy3 = gy3.astype(dtype)
        x3 = view.to3d(x)
        scale = gamma.reshape(-1).astype(dtype, copy=False) * inv_std
        # gx = gamma * r * (gy - r * ggamma / m * (x - mean) - gbeta / m)
        loops = _common.compiled_loops(x3, dtype) and _common.compiled_loops(gy3, dtype)
        if loops is not None:
            gbeta, ggamma = loops.gradient_sums(gy3, x3, mean)
            ggamma *= inv_std
            gx3 = loops.input_gradient(x3, mean, gy3, inv_std * ggamma * -inv_m,
                                       gbeta * -inv_m, scale)
        else:
            # Assembled in xc's buffer without temporaries.
            xc = gx3 = _common.channel_op(xp, xp.subtract, x3, mean, xp.empty(gy3.shape, dtype))
            gbeta = _common.channel_sum(xp, gy3)
            ggamma = _common.channel_dot(xp, gy3, xc) * inv_std
            op = _common.channel_op
            op(xp, xp.multiply, xc, inv_std * ggamma * -inv_m, xc)
            xc += gy3
            op(xp, xp.add, xc, gbeta * -inv_m, xc)
            op(xp, xp.multiply, xc, scale, xc)
        gx = view.from3d(gx3.astype(x.dtype, copy=False))
        return (gx, ggamma.astype(gamma.dtype).reshape(gamma.shape),
                gbeta.astype(gamma.dtype).reshape(gamma.shape))

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, gamma, gy = self.get_retained_inputs()
        ggamma, gbeta = self.get_retained_outputs()
        ggx, gggamma, ggbeta = grad_outputs
        view, dtype = self.view, self.mean.dtype
        k = view.shape3[1]
        inv_m = 1.0 / max(view.m, 1)

        def channels(v: Any) -> Any:
            return None if v is None else _common.cast(reshape(v, (k,)), dtype)

        def full(v: Any) -> Any:
            return None if v is None else _common.cast(view.to3d_variable(v), dtype)

        x3, gy3, a = full(x), full(gy), full(ggx)
        g, gg, gb, b, c = (channels(v) for v in (gamma, ggamma, gbeta, gggamma, ggbeta))
        # The statistics again, as functions of x, so that this is differentiable too.
        xc = x3 - _k(_sum(x3, axis=_AXES) * inv_m, k)
        r = (_sum(xc * xc, axis=_AXES) * inv_m + self.eps) ** -0.5
        x_hat = xc * _k(r, k)
        gr = g * r

        gx2 = ggamma2 = ggy2 = None
        coeff_gy = b
        if a is not None:
            sum_a = _sum(a, axis=_AXES) * inv_m
            sum_ax = _sum(a * x_hat, axis=_AXES) * inv_m
            ggamma2 = r * (_sum(a * gy3, axis=_AXES) - gb * sum_a - gg * sum_ax)
            ggy2 = _k(gr, k) * (a - _k(sum_a, k) - x_hat * _k(sum_ax, k))
            coeff_gy = _plus(coeff_gy, -(gr * sum_ax))
        if b is not None:
            ggy2 = _plus(ggy2, x_hat * _k(b, k))
        if c is not None:
            ggy2 = _plus(ggy2, _k(c, k)) if ggy2 is not None else \
                broadcast_to(_k(c, k), view.shape3)
        # h is the gradient reaching x_hat; it flows to x like a batch-norm backward.
        h = None if coeff_gy is None else gy3 * _k(coeff_gy, k)
        if a is not None:
            h = _plus(h, -(a * _k(gr * gg * inv_m, k)))
        if h is not None:
            along_x_hat = _sum(h * x_hat, axis=_AXES) * inv_m
            if ggamma2 is not None:
                along_x_hat = along_x_hat + g * ggamma2 * inv_m
            gx2 = _k(r, k) * (h - _k(_sum(h, axis=_AXES) * inv_m, k)
                              - x_hat * _k(along_x_hat, k))

        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                ret.append(None if gx2 is None
                           else _common.cast(view.from3d_variable(gx2), x.dtype))
            elif i == 1:
                ret.append(None if ggamma2 is None
                           else _common.cast(reshape(ggamma2, gamma.shape), gamma.dtype))
            else:
                ret.append(None if ggy2 is None
                           else _common.cast(view.from3d_variable(ggy2), gy.dtype))
        return tuple(ret)


def batch_normalization(x: Any, gamma: Any, beta: Any, *, eps: float = 2e-5,
                        running_mean: Any = None, running_var: Any = None,
                        decay: float = 0.9, axis: Any = None) -> Variable:
    """Batch normalization with the statistics of the batch.

    ``y = gamma * (x - mean) / sqrt(var + eps) + beta``, where ``mean`` and
    ``var`` (biased) are taken over the axes that ``gamma`` does not cover:
    by default the first axis and every axis after the channel axes, whose
    shape ``gamma`` and ``beta`` have (``x`` of shape ``(N, C, H, W)`` and
    ``gamma`` of shape ``(C,)`` reduce over axes 0, 2 and 3). The function
    always uses the batch statistics; the test-mode variant is
    :func:`fixed_batch_normalization`.

    When ``running_mean`` and ``running_var`` are given they are updated in
    place: ``running = decay * running + (1 - decay) * stat``, where the
    variance statistic is unbiased (``m / (m - 1)`` times the batch variance,
    ``m`` the number of reduced elements per channel).

    Args:
        x: The input Variable or array.
        gamma: The scale, of the channel shape.
        beta: The shift, of gamma's shape and dtype.
        eps: Added to the variance for numerical stability.
        running_mean: An array of gamma's shape to update in place, or None.
        running_var: An array of gamma's shape to update in place, or None.
        decay: The decay rate of the running averages.
        axis: The axes to reduce: an int or an ascending tuple of ints
            (None: the default described above). ``gamma`` then has the
            shape of the remaining axes.

    Returns:
        Variable: The normalized output, of x's shape and dtype.

    .. admonition:: Example

        >>> x = np.array([[1., 2.], [3., 6.]], dtype=np.float32)
        >>> gamma, beta = np.ones(2, np.float32), np.zeros(2, np.float32)
        >>> F.batch_normalization(x, gamma, beta, eps=0).array
        array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
    """
    node = BatchNormalization(eps, running_mean, running_var, decay, axis)
    if node.axis is not None:
        _common.resolve_axes(x.ndim, gamma.ndim, node.axis, 'batch_normalization')
    return node.apply((x, gamma, beta))[0]


class FixedBatchNormalization(FunctionNode):
    """Batch normalization with given statistics (test mode).

    Args:
        eps: Added to the variance.
        axis: The axes to reduce (None: all but the channel axes).

    Forward sets ``view`` and ``inv_std`` (flattened, compute dtype), which
    :meth:`backward` reads.
    """

    def __init__(self, eps: float = 2e-5, axis: Any = None) -> None:
        self.eps = eps
        self.axis = _common.check_axis_argument(axis, 'fixed_batch_normalization')

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'gamma', 'beta', 'mean', 'var'))
        x_type, gamma_type, beta_type, mean_type, var_type = in_types
        type_check.expect(x_type.dtype.kind == 'f')
        # As in Chainer, each of gamma, beta, mean and var may have its own
        # float dtype (float16 running averages with float32 gamma, say); the
        # gradient of each comes back in its dtype.
        for other in (gamma_type, beta_type, mean_type, var_type):
            type_check.expect(other.dtype.kind == 'f', other.shape == gamma_type.shape)
        _common.expect_channel_shapes(x_type, gamma_type, self.axis,
                                      'fixed_batch_normalization')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 3, 4))
        x, gamma, beta, mean, var = inputs
        xp = backend.get_array_module(x)
        self.axis, self.key_axis = _common.resolve_axes(
            x.ndim, gamma.ndim, self.axis, 'fixed_batch_normalization')
        view = self.view = _common.view_for(x.shape, self.axis, self.key_axis)
        dtype = _common.compute_dtype(x.dtype, gamma.dtype)
        inv_std = _common.inverse_std(xp, var.reshape(-1).astype(dtype), self.eps)
        scale = gamma.reshape(-1).astype(dtype, copy=False) * inv_std
        shift = beta.reshape(-1).astype(dtype) - mean.reshape(-1) * scale
        y = _common.channel_op(xp, xp.multiply, view.to3d(x), scale,
                               xp.empty(view.shape3, dtype))
        _common.channel_op(xp, xp.add, y, shift, y)
        self.inv_std = inv_std
        return view.from3d(y.astype(x.dtype, copy=False)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, gamma, mean, var = self.get_retained_inputs()
        node = FixedBatchNormalizationGrad(self.eps, self.view, self.inv_std)
        gx, ggamma, gbeta, gmean, gvar = node.apply((x, gamma, mean, var, grad_outputs[0]))
        assert self.inputs is not None  # set by apply(), which runs before backward
        return gx, ggamma, _common.cast(gbeta, self.inputs[2].dtype), gmean, gvar


class FixedBatchNormalizationGrad(FunctionNode):
    """Gradients of :class:`FixedBatchNormalization`.

    ``(x, gamma, mean, var, gy) -> (gx, ggamma, gbeta, gmean, gvar)`` with
    ``s = 1 / sqrt(var + eps)``: ``gx = gamma * s * gy``, ``gbeta = sum(gy)``,
    ``ggamma = sum(gy * x_hat)``, ``gmean = -gamma * s * gbeta`` and
    ``gvar = -gamma * s**2 * ggamma / 2``.
    """

    def __init__(self, eps: float, view: _common.View, inv_std: Any) -> None:
        self.eps = eps
        self.view = view
        self.inv_std = inv_std

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3, 4))
        self.retain_outputs((1, 2))
        x, gamma, mean, var, gy = inputs
        xp = backend.get_array_module(x)
        view, s = self.view, self.inv_std
        dtype = s.dtype
        gy3 = view.to3d(gy)
        if gy3.dtype != dtype:
            gy3 = gy3.astype(dtype)
        gamma_s = gamma.reshape(-1).astype(dtype, copy=False) * s
        xc = _common.channel_op(xp, xp.subtract, view.to3d(x), mean.reshape(-1),
                                xp.empty(view.shape3, dtype))
        gbeta = _common.channel_sum(xp, gy3)
        ggamma = _common.channel_dot(xp, gy3, xc) * s
        gx = _common.channel_op(xp, xp.multiply, gy3, gamma_s, xc)
        shape, pdtype = gamma.shape, gamma.dtype
        return (view.from3d(gx.astype(x.dtype, copy=False)),
                ggamma.astype(pdtype).reshape(shape), gbeta.astype(pdtype).reshape(shape),
                (-gamma_s * gbeta).astype(mean.dtype).reshape(shape),
                (-0.5 * gamma_s * s * ggamma).astype(var.dtype).reshape(shape))

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, gamma, mean, var, gy = self.get_retained_inputs()
        ggamma, gbeta = self.get_retained_outputs()
        view, dtype = self.view, self.inv_std.dtype
        k = view.shape3[1]

        def channels(v: Any) -> Any:
            return None if v is None else _common.cast(reshape(v, (k,)), dtype)

        def full(v: Any) -> Any:
            return None if v is None else _common.cast(view.to3d_variable(v), dtype)

        x3, gy3, a = full(x), full(gy), full(grad_outputs[0])
        g, mu, v, gg, gb = (channels(t) for t in (gamma, mean, var, ggamma, gbeta))
        b_gamma, b_beta, b_mean, b_var = (channels(t) for t in grad_outputs[1:])
        s = (v + self.eps) ** -0.5
        x_hat = (x3 - _k(mu, k)) * _k(s, k)
        # L = <a, gx> + b_gamma ggamma + b_beta gbeta + b_mean gmean + b_var gvar; p and q
        # are the total coefficients of ggamma and gbeta.
        p = _plus(b_gamma, None if b_var is None else -0.5 * b_var * g * s * s)
        q = _plus(b_beta, None if b_mean is None else -(b_mean * g * s))
        sum_a_gy = None if a is None else _sum(a * gy3, axis=_AXES)

        ggy = None if a is None else a * _k(g * s, k)
        if p is not None:
            ggy = _plus(ggy, x_hat * _k(p, k))
        if q is not None:
            ggy = _plus(ggy, _k(q, k)) if ggy is not None else \
                broadcast_to(_k(q, k), view.shape3)
        gx = None if p is None else gy3 * _k(p * s, k)
        gmean = None if p is None else -(s * p * gb)
        ggamma2 = None if a is None else s * sum_a_gy
        if b_mean is not None:
            ggamma2 = _plus(ggamma2, -(b_mean * s * gb))
        if b_var is not None:
            ggamma2 = _plus(ggamma2, -0.5 * b_var * s * s * gg)
        gvar = None
        if a is not None:
            gvar = g * sum_a_gy
        if b_mean is not None:
            gvar = _plus(gvar, -(b_mean * g * gb))
        if gvar is not None:
            gvar = -0.5 * s * s * s * gvar
        inner = _plus(b_gamma, None if b_var is None else -1.5 * b_var * g * s * s)
        if inner is not None:
            gvar = _plus(gvar, -0.5 * s * s * gg * inner)

        results = {0: (gx, x, True), 1: (ggamma2, gamma, False), 2: (gmean, mean, False),
                   3: (gvar, var, False), 4: (ggy, gy, True)}
        ret: list[Any] = []
        for i in indexes:
            value, like, is_full = results[i]
            if value is None:
                ret.append(None)
            elif is_full:
                ret.append(_common.cast(view.from3d_variable(value), like.dtype))
            else:
                ret.append(_common.cast(reshape(value, like.shape), like.dtype))
        return tuple(ret)


def fixed_batch_normalization(x: Any, gamma: Any, beta: Any, mean: Any, var: Any,
                              eps: float = 2e-5, axis: Any = None) -> Variable:
    """Batch normalization with fixed statistics (for test mode).

    ``y = gamma * (x - mean) / sqrt(var + eps) + beta`` with the given
    ``mean`` and ``var``, broadcast over the reduced axes as in
    :func:`batch_normalization`. Gradients flow to every input.

    Args:
        x: The input Variable or array.
        gamma: The scale, of the channel shape.
        beta: The shift.
        mean: The mean to subtract (for example a running mean).
        var: The variance to divide by (for example a running variance).
        eps: Added to the variance for numerical stability.
        axis: The axes that the statistics were taken over (see
            :func:`batch_normalization`).

    Returns:
        Variable: The normalized output, of x's shape and dtype.

    .. admonition:: Example

        >>> x = np.array([[1., 3.]], dtype=np.float32)
        >>> one, zero = np.ones(2, np.float32), np.zeros(2, np.float32)
        >>> F.fixed_batch_normalization(x, one, zero, one, 4 * one, eps=0).array
        array([[0., 1.]], dtype=float32)
    """
    node = FixedBatchNormalization(eps, axis)
    if node.axis is not None:
        _common.resolve_axes(x.ndim, gamma.ndim, node.axis, 'fixed_batch_normalization')
    return node.apply((x, gamma, beta, mean, var))[0]
