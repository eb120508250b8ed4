"""Batch normalization whose statistics cover the batches of all ranks.

Forward sums, per channel, the element count, the sum and the sum of squares
of every rank's batch (one all-reduce), so each rank normalizes with the
mean and variance of the global batch. Each rank's sums of squares are taken
around its own mean first (then shifted), and the all-reduce runs in
float64, so the variance does not lose precision to cancellation.

Backward all-reduces the per-channel sums ``sum(gy)`` and
``sum(gy * x_hat)``, so the gradient of each rank's ``x`` is that of
single-process batch normalization over the global batch. The gradients of
``gamma`` and ``beta`` are those sums divided by the number of ranks (as in
ChainerMN): identical on every rank, they are what averaging per-rank
gradients gives, like every other parameter's gradient after
``create_multi_node_optimizer`` averages it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.normalization import _common
from catena.utils import type_check
from catena.variable import Variable

Allreduce = Callable[[Any], Any]


class MultiNodeBatchNormalizationFunction(FunctionNode):
    """Training-mode batch normalization with the statistics of all ranks' batches.

    Inputs ``(x, gamma, beta)``; output ``y``.

    Args:
        allreduce: Sums an array over all ranks (``comm.allreduce``).
        n_ranks: The number of ranks (divides the parameter gradients).
        eps: Added to the variance.
        running_mean: The running mean to update in place, or None.
        running_var: The running (unbiased) variance to update in place, or None.
        decay: The decay rate of the running averages.
        axis: The axes to reduce (None: all but the channel axes).
    """

    def __init__(self, allreduce: Allreduce, n_ranks: int, eps: float = 2e-5,
                 running_mean: Any = None, running_var: Any = None, decay: float = 0.9,
                 axis: Any = None) -> None:
        if (running_mean is None) != (running_var is None):
            raise ValueError('multi-node batch normalization: running_mean and running_var '
                             'must be given together')
        self.allreduce = allreduce
        self.n_ranks = n_ranks
        self.eps = eps
        self.running_mean = running_mean
        self.running_var = running_var
        self.decay = decay
        self.axis = _common.check_axis_argument(axis, 'multi_node_batch_normalization')

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'gamma', 'beta'))
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            gamma_type.dtype.kind == 'f',
            gamma_type.dtype == beta_type.dtype,
            gamma_type.shape == beta_type.shape,
        )
        _common.expect_channel_shapes(x_type, gamma_type, self.axis,
                                      'multi_node_batch_normalization')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        axis, key_axis = _common.resolve_axes(x.ndim, gamma.ndim, self.axis,
                                              'multi_node_batch_normalization')
        view = self.view = _common.view_for(x.shape, axis, key_axis)
        dtype = _common.compute_dtype(x.dtype, gamma.dtype)
        xc, local_mean, local_var = _common.centered_statistics(xp, view.to3d(x), dtype)
        mean, var, count = self._global_statistics(xp, local_mean, local_var, view.m, dtype)
        # xc is centered on the local mean; shift it to the global one.
        _common.channel_op(xp, xp.add, xc, local_mean - mean, xc)
        inv_std = _common.inverse_std(xp, var, self.eps)
        _common.channel_op(xp, xp.multiply, xc, gamma.reshape(-1).astype(dtype) * inv_std, xc)
        _common.channel_op(xp, xp.add, xc, beta.reshape(-1).astype(dtype), xc)
        self.mean, self.inv_std, self.count = mean, inv_std, count
        if self.running_mean is not None:
            _common.update_running(xp, self.running_mean, mean.reshape(gamma.shape), self.decay)
            _common.update_running(xp, self.running_var, var.reshape(gamma.shape), self.decay,
                                   count / max(count - 1.0, 1.0))
        return view.from3d(xc.astype(x.dtype, copy=False)),

    def _global_statistics(self, xp: Any, local_mean: Any, local_var: Any, m: int,
                           dtype: Any) -> tuple[Any, Any, float]:
        """The mean and (biased) variance over all ranks, and the global element count."""
        k = local_mean.size
        packed = xp.empty(2 * k + 1, dtype=numpy.float64)
        packed[:k] = local_mean
        packed[:k] *= m
        packed[k:2 * k] = local_var
        packed[k:2 * k] += xp.square(local_mean.astype(numpy.float64))
        packed[k:2 * k] *= m
        packed[2 * k] = m
        total = self.allreduce(packed)
        count = float(total[2 * k])
        if count <= 0:
            raise ValueError('multi-node batch normalization: the batches of all ranks are '
                             'empty')
        mean = total[:k] / count
        var = xp.maximum(total[k:2 * k] / count - mean * mean, 0.0)
        return mean.astype(dtype), var.astype(dtype), count

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, gamma = self.get_retained_inputs()
        node = MultiNodeBatchNormalizationGrad(self.allreduce, self.n_ranks, self.view,
                                               self.mean, self.inv_std, self.count)
        return node.apply((x, gamma, grad_outputs[0]))


class MultiNodeBatchNormalizationGrad(FunctionNode):
    """``(x, gamma, gy) -> (gx, ggamma, gbeta)`` of :class:`MultiNodeBatchNormalizationFunction`.

    With the global sums ``Gb = sum(gy)`` and ``Gg = sum(gy * x_hat)`` over
    all ranks and ``M`` the global count::

        gx = gamma * inv_std * (gy - (x_hat * Gg + Gb) / M)
        ggamma = Gg / n_ranks,  gbeta = Gb / n_ranks
    """

    def __init__(self, allreduce: Allreduce, n_ranks: int, view: _common.View, mean: Any,
                 inv_std: Any, count: float) -> None:
        self.allreduce = allreduce
        self.n_ranks = n_ranks
        self.view = view
        self.mean = mean
        self.inv_std = inv_std
        self.count = count

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gamma, gy = inputs
        xp = backend.get_array_module(x)
        view, inv_std = self.view, self.inv_std
        dtype = inv_std.dtype
        gy3 = view.to3d(gy).astype(dtype, copy=False)
        x_hat = _common.channel_op(xp, xp.subtract, view.to3d(x), self.mean,
                                   xp.empty(gy3.shape, dtype))
        _common.channel_op(xp, xp.multiply, x_hat, inv_std, x_hat)
        k = inv_std.size
        packed = xp.empty(2 * k, dtype=dtype)
        packed[:k] = _common.channel_sum(xp, gy3)
        packed[k:] = _common.channel_dot(xp, gy3, x_hat)
        total = self.allreduce(packed)
        gbeta, ggamma = total[:k], total[k:]
        inv_m = dtype.type(1.0 / self.count)
        # gx = gamma * inv_std * (gy - (x_hat * ggamma + gbeta) / M), built in x_hat's buffer.
        _common.channel_op(xp, xp.multiply, x_hat, ggamma * -inv_m, x_hat)
        x_hat += gy3
        _common.channel_op(xp, xp.add, x_hat, gbeta * -inv_m, x_hat)
        _common.channel_op(xp, xp.multiply, x_hat, gamma.reshape(-1).astype(dtype) * inv_std,
                           x_hat)
        scale = 1.0 / self.n_ranks
        return (view.from3d(x_hat.astype(x.dtype, copy=False)),
                (ggamma * scale).astype(gamma.dtype).reshape(gamma.shape),
                (gbeta * scale).astype(gamma.dtype).reshape(gamma.shape))

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        raise NotImplementedError(
            'double backprop through multi-node batch normalization is not supported (the '
            'second-order terms would need more communication); use '
            'catena.links.BatchNormalization for higher-order gradients')


def multi_node_batch_normalization(x: Any, gamma: Any, beta: Any, allreduce: Allreduce,
                                   n_ranks: int, *, eps: float = 2e-5,
                                   running_mean: Any = None, running_var: Any = None,
                                   decay: float = 0.9, axis: Any = None) -> Variable:
    """Batch normalization with the statistics of the global batch (all ranks' ``x``).

    Args:
        x: This rank's input Variable or array.
        gamma: The scale, of the channel shape.
        beta: The shift.
        allreduce: Sums an array over all ranks (a communicator's ``allreduce``).
        n_ranks: The number of ranks.
        eps: Added to the variance.
        running_mean: An array to update in place with the global mean, or None.
        running_var: An array to update in place with the global unbiased
            variance, or None.
        decay: The decay rate of the running averages.
        axis: The axes to reduce (see :func:`catena.functions.batch_normalization`).

    Returns:
        Variable: The normalized output, of x's shape and dtype.
    """
    node = MultiNodeBatchNormalizationFunction(allreduce, n_ranks, eps, running_mean,
                                               running_var, decay, axis)
    return node.apply((x, gamma, beta))[0]
