"""``group_normalization``: normalization over groups of channels of each sample."""

from __future__ import annotations

import math
from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.cast import cast
from catena.functions.array.reshape import reshape
from catena.functions.math.sum import sum as _sum
from catena.functions.normalization import _common
from catena.functions.normalization.batch_normalization import BatchNormalization
from catena.utils import type_check
from catena.variable import Variable


def _check_groups(groups: Any) -> int:
    if isinstance(groups, bool) or not isinstance(groups, (int, numpy.integer)) or groups < 1:
        raise TypeError(f'group_normalization: groups must be a positive int; got {groups!r}')
    return int(groups)


class _PerSampleNormalization(FunctionNode):
    """Normalizes each sample over groups of channels, then scales and shifts per channel.

    ``x`` of shape ``(N, C, ...)`` is seen as ``N * groups`` rows of
    ``C / groups * prod(...)`` elements; each row is standardized and the
    result is ``x_hat * gamma[c] + beta[c]``.
    """

    groups = 1
    function = ''

    def __init__(self, eps: float) -> None:
        self.eps = eps

    def _shapes(self, shape: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The shapes of the rows, ``(1, N * groups, -1)``, and of ``(N, C, -1)``."""
        if shape[1] % self.groups:
            raise ValueError(f'{self.function}: the number of channels, {shape[1]}, is not '
                             f'divisible by groups, {self.groups} (x.shape is {shape})')
        n, c, size = shape[0], shape[1], math.prod(shape[2:])
        return (1, n * self.groups, c // self.groups * size), (n, c, size)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        rows_shape, channels_shape = self._shapes(x.shape)
        dtype = _common.compute_dtype(x.dtype)
        y, _, var = _common.centered_statistics(xp, x.reshape(rows_shape), dtype)
        _common.channel_op(xp, xp.multiply, y, _common.inverse_std(xp, var, self.eps), y)
        y = y.reshape(channels_shape)
        _common.channel_op(xp, xp.multiply, y, gamma.astype(dtype, copy=False), y)
        _common.channel_op(xp, xp.add, y, beta.astype(dtype, copy=False), y)
        return y.astype(x.dtype, copy=False).reshape(x.shape),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, gamma = self.get_retained_inputs()
        gy, = grad_outputs
        rows_shape, channels_shape = self._shapes(x.shape)
        xp = backend.get_array_module(x)
        rows = reshape(x, rows_shape)
        ones = xp.ones(rows_shape[1], x.dtype)
        # Standardizing the rows is batch normalization of a (1, rows, -1) array
        # without scale and shift; its nodes give the gradients (and their gradients).
        standardize = BatchNormalization(self.eps, axis=(0, 2))
        standardize.warn_small_batch = False
        x_hat = reshape(standardize.apply((rows, ones, xp.zeros_like(ones)))[0], channels_shape)
        gy3 = reshape(gy, channels_shape)
        param_dtype = gamma.dtype
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                scale = gamma if param_dtype == x.dtype else cast(gamma, x.dtype)
                gx_hat = gy3 * reshape(scale, (1, -1, 1))
                gx = standardize.grad_node().apply((rows, ones, reshape(gx_hat, rows_shape)))[0]
                ret.append(reshape(gx, x.shape))
            else:
                g = _sum(gy3 * x_hat if i == 1 else gy3, axis=(0, 2))
                ret.append(g if g.dtype == param_dtype else cast(g, param_dtype))
        return tuple(ret)


class GroupNormalization(_PerSampleNormalization):
    """Group normalization (see :func:`group_normalization`)."""

    function = 'group_normalization'

    def __init__(self, groups: int, eps: float = 1e-5) -> None:
        super().__init__(eps)
        self.groups = _check_groups(groups)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'gamma', 'beta'))
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.ndim >= 2,
            gamma_type.ndim == 1,
            gamma_type.dtype.kind == 'f',
            beta_type.dtype == gamma_type.dtype,
            x_type.shape[1] == gamma_type.shape[0],
            gamma_type.shape == beta_type.shape,
        )


def group_normalization(x: Any, groups: int, gamma: Any, beta: Any,
                        eps: float = 1e-5) -> Variable:
    """Group normalization.

    The channels of each sample are split into ``groups`` groups of
    consecutive channels; each group is normalized by its own mean and
    (biased) variance over its channels and the spatial axes, then every
    channel ``c`` is scaled by ``gamma[c]`` and shifted by ``beta[c]``.

    Args:
        x: A batch of shape ``(N, C, ...)`` (at least 2-D).
        groups: The number of channel groups; it must divide ``C``.
        gamma: The scale, of shape ``(C,)``, of any float dtype (float32
            with a float16 ``x`` under mixed16, as in Chainer).
        beta: The shift, of ``gamma``'s shape and dtype.
        eps: Added to the variance.

    Returns:
        Variable: The output, of x's shape and dtype.

    .. admonition:: Example

        >>> x = np.array([[[1.], [3.], [0.], [4.]]], dtype=np.float32)  # (1, 4, 1)
        >>> one, zero = np.ones(4, np.float32), np.zeros(4, np.float32)
        >>> F.group_normalization(x, 2, one, zero, eps=0).array[0, :, 0]
        array([-1.,  1., -1.,  1.], dtype=float32)

    See: `Group Normalization <https://arxiv.org/abs/1803.08494>`_
    """
    node = GroupNormalization(groups, eps)
    if x.ndim >= 2:
        node._shapes(x.shape)  # raises the ValueError for groups not dividing C early
    return node.apply((x, gamma, beta))[0]
