"""``decorrelated_batch_normalization`` and ``fixed_decorrelated_batch_normalization``.

The channels are split into ``groups`` groups of ``C`` channels; within each
group the input is centred and whitened by ZCA, ``y = cov^(-1/2) (x - mean)``,
where ``cov`` is the ``C x C`` covariance over the batch and spatial axes
(plus ``eps`` on the diagonal).
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.broadcast import broadcast_to
from catena.functions.array.reshape import reshape
from catena.functions.array.transpose import transpose
from catena.functions.math.matmul import matmul
from catena.functions.math.sum import sum as _sum
from catena.functions.normalization import _common
from catena.utils import type_check
from catena.variable import Variable


class _Groups:
    """Moves ``x`` of shape ``(b, c, ...)`` to ``(groups, c // groups, m)`` and back."""

    def __init__(self, shape: tuple[int, ...], groups: int) -> None:
        self.shape = shape
        self.groups = groups
        self.channels = shape[1] // groups
        self.m = shape[0] * math.prod(shape[2:])
        self.perm = (1, 0) + tuple(range(2, len(shape)))  # its own inverse
        self.moved = (shape[1], shape[0]) + shape[2:]
        self.grouped = (groups, self.channels, self.m)

    def to_groups(self, x: Any) -> Any:
        return x.transpose(self.perm).reshape(self.grouped)

    def from_groups(self, y: Any) -> Any:
        return y.reshape(self.moved).transpose(self.perm)

    def to_groups_variable(self, x: Any) -> Variable:
        return reshape(transpose(x, self.perm), self.grouped)

    def from_groups_variable(self, y: Any) -> Variable:
        return transpose(reshape(y, self.moved), self.perm)


def _swap(a: Any) -> Any:
    return a.swapaxes(-1, -2)


def _expect_groups(x_type: Any, groups: int) -> None:
    type_check.expect(x_type.dtype.kind == 'f', x_type.ndim >= 2)
    type_check.expect(x_type.shape[1] % type_check.make_variable(groups, 'groups') == 0)


def _check_groups_argument(groups: Any, function: str) -> int:
    if isinstance(groups, bool) or not isinstance(groups, (int, numpy.integer)) or groups < 1:
        raise TypeError(f'{function}: groups must be a positive int; got {groups!r}')
    return int(groups)


class DecorrelatedBatchNormalization(FunctionNode):
    """ZCA whitening of channel groups with batch statistics (training mode)."""

    def __init__(self, groups: int = 16, eps: float = 2e-5, mean: Any = None,
                 projection: Any = None, decay: float = 0.9) -> None:
        self.groups = _check_groups_argument(groups, 'decorrelated_batch_normalization')
        self.eps = eps
        self.running_mean = _common.raw_array(mean)
        self.running_projection = _common.raw_array(projection)
        self.decay = decay

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        _expect_groups(in_types[0], self.groups)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        layout = self.layout = _Groups(x.shape, self.groups)
        dtype = _common.compute_dtype(x.dtype)
        xg = layout.to_groups(x).astype(dtype)
        mean = xg.mean(axis=2)
        xg -= mean[..., None]
        cov = xp.matmul(xg, _swap(xg))
        cov *= dtype.type(1.0 / max(layout.m, 1))
        cov += xp.eye(layout.channels, dtype=dtype) * dtype.type(self.eps)
        eigvals, eigvectors = xp.linalg.eigh(cov)
        # W = V diag(eigvals ** -1/2) V^T, symmetric.
        projection = xp.matmul(eigvectors * (eigvals ** -0.5)[:, None, :], _swap(eigvectors))
        y = xp.matmul(projection, xg)
        self.xc, self.projection = xg, projection
        self.eigvals, self.eigvectors = eigvals, eigvectors
        self._update_running(xp, mean, projection, layout)
        return layout.from_groups(y.astype(x.dtype, copy=False)),

    def _update_running(self, xp: Any, mean: Any, projection: Any, layout: _Groups) -> None:
        expected = {'running_mean': (layout.groups, layout.channels),
                    'running_projection': (layout.groups, layout.channels, layout.channels)}
        for name, running in (('running_mean', self.running_mean),
                              ('running_projection', self.running_projection)):
            if running is not None and running.shape != expected[name]:
                raise ValueError(f'decorrelated_batch_normalization: {name} has shape '
                                 f'{running.shape}; expected (groups, C[, C]) = {expected[name]}')
        if self.running_mean is not None:
            _common.update_running(xp, self.running_mean, mean, self.decay)
        if self.running_projection is not None:
            m = layout.m
            _common.update_running(xp, self.running_projection, projection, self.decay,
                                   m / max(m - 1.0, 1.0))

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return DecorrelatedBatchNormalizationGrad(self).apply(grad_outputs)


class DecorrelatedBatchNormalizationGrad(FunctionNode):
    """The gradient of :class:`DecorrelatedBatchNormalization` (first order only).

    With ``W = f(cov)``, ``f(t) = t ** -1/2``, and ``cov = V diag(l) V^T``::

        gxc = W gy + (B + B^T) xc / m,  B = V (F * (V^T (gy xc^T) V)) V^T,
        F_ij = (f(l_i) - f(l_j)) / (l_i - l_j) = -1 / (s_i s_j (s_i + s_j)),  s = sqrt(l)

    and ``gx`` is ``gxc`` minus its mean over the batch and spatial axes.
    """

    def __init__(self, forward_node: DecorrelatedBatchNormalization) -> None:
        self.layout = forward_node.layout
        self.xc = forward_node.xc
        self.projection = forward_node.projection
        self.eigvals = forward_node.eigvals
        self.eigvectors = forward_node.eigvectors

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        layout, xc, v = self.layout, self.xc, self.eigvectors
        g = layout.to_groups(gy).astype(xc.dtype)
        s = xp.sqrt(self.eigvals)
        f = -1.0 / (s[:, :, None] * s[:, None, :] * (s[:, :, None] + s[:, None, :]))
        inner = xp.matmul(_swap(v), xp.matmul(xp.matmul(g, _swap(xc)), v))
        b = xp.matmul(v, xp.matmul(f * inner, _swap(v)))
        gxc = xp.matmul(self.projection, g)
        gxc += xp.matmul((b + _swap(b)) * xc.dtype.type(1.0 / max(layout.m, 1)), xc)
        gxc -= gxc.mean(axis=2, keepdims=True)
        return layout.from_groups(gxc.astype(gy.dtype, copy=False)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        raise NotImplementedError('decorrelated_batch_normalization does not support double '
                                  'backprop (nor does Chainer)')


def decorrelated_batch_normalization(x: Any, *, groups: int = 16, eps: float = 2e-5,
                                     running_mean: Any = None, running_projection: Any = None,
                                     decay: float = 0.9) -> Variable:
    """Decorrelated batch normalization (ZCA whitening over the batch).

    The ``c`` channels of ``x`` (shape ``(b, c, ...)``) are split into
    ``groups`` groups of ``C = c / groups`` consecutive channels. Each group
    is centred by its mean and multiplied by ``cov^(-1/2)``, where ``cov`` is
    its ``C x C`` covariance over the batch and spatial axes plus ``eps`` on
    the diagonal: the output channels of a group are uncorrelated with unit
    variance.

    When given, ``running_mean`` (shape ``(groups, C)``) and
    ``running_projection`` (shape ``(groups, C, C)``) are updated in place
    with ``decay``; as in Chainer, the projection's update is scaled by
    ``m / (m - 1)`` (``m`` the number of samples per channel).

    Args:
        x: The input Variable or array, at least 2-D.
        groups: The number of channel groups; it must divide ``c``.
        eps: Added to the covariance's diagonal.
        running_mean: The running mean to update in place, or None.
        running_projection: The running projection to update in place, or None.
        decay: The decay rate of the running averages.

    Returns:
        Variable: The output, of x's shape and dtype.

    .. admonition:: Example

        >>> x = np.array([[1., 2.], [-1., 0.], [0., 1.], [2., -3.]], dtype=np.float32)
        >>> y = F.decorrelated_batch_normalization(x, groups=1, eps=0).array
        >>> np.allclose(y.T @ y / len(y), np.eye(2), atol=1e-5)  # white
        True

    See: `Decorrelated Batch Normalization <https://arxiv.org/abs/1804.08450>`_
    """
    node = DecorrelatedBatchNormalization(groups, eps, running_mean, running_projection, decay)
    return node.apply((x,))[0]


class FixedDecorrelatedBatchNormalization(FunctionNode):
    """ZCA whitening with given statistics: ``y = projection (x - mean)`` per group."""

    def __init__(self, groups: int) -> None:
        self.groups = _check_groups_argument(groups, 'fixed_decorrelated_batch_normalization')

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'mean', 'projection'))
        x_type, mean_type, projection_type = in_types
        _expect_groups(x_type, self.groups)
        # As in Chainer, the statistics may have another float dtype than x.
        type_check.expect(mean_type.dtype.kind == 'f', projection_type.dtype.kind == 'f')
        groups = type_check.make_variable(self.groups, 'groups')
        channels = x_type.shape[1] // groups
        type_check.expect(mean_type.ndim == 2, projection_type.ndim == 3)
        type_check.expect(
            mean_type.shape[0] == groups,
            mean_type.shape[1] == channels,
            projection_type.shape[0] == groups,
            projection_type.shape[1] == channels,
            projection_type.shape[2] == channels,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x, mean, projection = inputs
        xp = backend.get_array_module(x)
        layout = self.layout = _Groups(x.shape, self.groups)
        dtype = _common.compute_dtype(x.dtype, mean.dtype, projection.dtype)
        xc = layout.to_groups(x).astype(dtype)
        xc -= mean[..., None]
        y = xp.matmul(projection.astype(dtype, copy=False), xc)
        return layout.from_groups(y.astype(x.dtype, copy=False)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, mean, projection = self.get_retained_inputs()
        node = FixedDecorrelatedBatchNormalizationGrad(self.layout)
        return node.apply((x, mean, projection, grad_outputs[0]))


class FixedDecorrelatedBatchNormalizationGrad(FunctionNode):
    """``(x, mean, projection, gy) -> (gx, gmean, gprojection)`` of the fixed variant.

    Per group, with ``xc = x - mean``: ``gx = P^T gy``, ``gmean = -sum(gx)``
    over the samples and ``gprojection = gy xc^T``.
    """

    def __init__(self, layout: _Groups) -> None:
        self.layout = layout

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3))
        x, mean, projection, gy = inputs
        xp = backend.get_array_module(x)
        layout = self.layout
        dtype = _common.compute_dtype(x.dtype, mean.dtype, projection.dtype)
        g = layout.to_groups(gy).astype(dtype)
        xc = layout.to_groups(x).astype(dtype)
        xc -= mean[..., None]
        gxc = xp.matmul(_swap(projection.astype(dtype, copy=False)), g)
        gprojection = xp.matmul(g, _swap(xc))
        gmean = -gxc.sum(axis=2)
        return (layout.from_groups(gxc.astype(x.dtype, copy=False)),
                gmean.astype(mean.dtype, copy=False),
                gprojection.astype(projection.dtype, copy=False))

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, mean_in, projection_in, gy = self.get_retained_inputs()
        a, b_mean, b_projection = grad_outputs
        # Statistics of another dtype than x: the second order is computed in x's.
        mean, projection = _common.cast(mean_in, x.dtype), _common.cast(projection_in, x.dtype)
        b_mean, b_projection = _common.cast(b_mean, x.dtype), _common.cast(b_projection, x.dtype)
        layout = self.layout
        g = layout.to_groups_variable(gy)
        # The gradient reaching gx's layout, including gmean = -sum(gx).
        a_total = None if a is None else layout.to_groups_variable(a)
        if b_mean is not None:
            shift = broadcast_to(reshape(b_mean, b_mean.shape + (1,)), layout.grouped)
            a_total = -shift if a_total is None else a_total - shift
        ret: list[Any] = []
        for i in indexes:
            if i == 3:
                ggy = None if a_total is None else matmul(projection, a_total)
                if b_projection is not None:
                    xc = layout.to_groups_variable(x) - broadcast_to(
                        reshape(mean, mean.shape + (1,)), layout.grouped)
                    term = matmul(b_projection, xc)
                    ggy = term if ggy is None else ggy + term
                ret.append(None if ggy is None else layout.from_groups_variable(ggy))
            elif i == 2:
                ret.append(None if a_total is None else _common.cast(
                    matmul(g, _swap_variable(a_total)), projection_in.dtype))
            elif b_projection is None:
                ret.append(None)
            else:
                gxc = matmul(_swap_variable(b_projection), g)
                ret.append(layout.from_groups_variable(gxc) if i == 0
                           else _common.cast(-_sum(gxc, axis=2), mean_in.dtype))
        return tuple(ret)


def _swap_variable(v: Any) -> Variable:
    return transpose(v, (0, 2, 1))


def fixed_decorrelated_batch_normalization(x: Any, mean: Any, projection: Any,
                                           groups: int = 16) -> Variable:
    """Decorrelated batch normalization with fixed statistics (test mode).

    Per group of ``C = c / groups`` channels, ``y = projection (x - mean)``
    with ``mean`` of shape ``(groups, C)`` and ``projection`` of shape
    ``(groups, C, C)`` (for example the running averages kept by
    :func:`decorrelated_batch_normalization`).

    ``mean`` and ``projection`` may have other float dtypes than ``x``
    (the computation is in the widest of them, float32 at least); their
    gradients have their own dtypes.

    Args:
        x: The input Variable or array, at least 2-D.
        mean: The mean to subtract, of shape ``(groups, C)``.
        projection: The whitening matrices, of shape ``(groups, C, C)``.
        groups: The number of channel groups.

    Returns:
        Variable: The output, of x's shape and dtype.

    .. admonition:: Example

        >>> x = np.array([[1., 2.]], dtype=np.float32)
        >>> mean = np.zeros((1, 2), np.float32)
        >>> projection = 2 * np.eye(2, dtype=np.float32)[None]
        >>> F.fixed_decorrelated_batch_normalization(x, mean, projection, groups=1).array
        array([[2., 4.]], dtype=float32)
    """
    return FixedDecorrelatedBatchNormalization(groups).apply((x, mean, projection))[0]
