"""oneDNN kernels of ``batch_normalization`` and ``fixed_batch_normalization``, both passes.

The core sees ``x`` as ``(A, K, B)`` (:class:`catena.functions.normalization.
_common.View`): statistics per channel ``K`` over ``A`` and ``B``. When the
kept axes are adjacent that is a reshape, and it is oneDNN's ``(N, C, W)``
layout; ``(N, C)`` to ``(N, C, D, H, W)`` inputs keep their own shape. Kept
axes that are not adjacent (``axis=(1, 3)`` on a 4-d input, say) need a
transpose, and fall back to the generic code. So do float16/float64 inputs,
a single element per channel (the generic code warns) and, under
``use_ideep='auto'``, the shapes where NumPy is as fast (:data:`AUTO_MIN_SIZE`,
:data:`AUTO_MAX_SPATIAL`).

oneDNN and Chainer agree on the formula, ``eps`` included:
``y = gamma * (x - mean) / sqrt(var + eps) + beta``, with the biased batch
variance. The kernels leave each node as its generic ``forward`` does
(``axis``, ``key_axis``, ``view``, ``mean``, ``inv_std``, the retained
arrays, the running averages with Chainer's ``m / (m - 1)`` correction), so
that the generic backward and double backward run unchanged after them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy

from catena.backends import Fallback
from catena.functions.normalization import _common as _norm
from catena_intel64 import _capi, _primitive
from catena_intel64._primitive import MemoryDesc, Operation, PrimitiveDesc
from catena_intel64.kernels import _common

_TRAINING = _capi.USE_SCALE | _capi.USE_SHIFT
_GLOBAL_STATS = _capi.USE_GLOBAL_STATS | _capi.USE_SCALE | _capi.USE_SHIFT

AUTO_MIN_SIZE = 16384
"""Under ``use_ideep='auto'``, smaller inputs run the generic code (as fast or faster)."""

AUTO_MAX_SPATIAL = {'batch_normalization': 16, 'batch_normalization_grad': 16,
                    'fixed_batch_normalization': 0, 'fixed_batch_normalization_grad': 4}
"""Under ``use_ideep='auto'``, the most elements per (sample, channel) row (``H * W``)
for which each kernel runs (0: never).

Measured on 2 cores against the generic code: NumPy's per-channel loops are efficient
on long rows, where oneDNN's reorders to and from its blocked layout cost more than they
save (ResNet's 32x32 and 16x16 maps run 1.3-4 times slower on oneDNN, 8x8 breaks even,
4x4 and smaller run 1.1-2.2 times faster). The generic inference forward, two passes,
beats oneDNN's with its reorders at every size measured.
"""


def _dnnl_shape(view: _norm.View) -> tuple[int, ...] | None:
    """The shape oneDNN is told for arrays of ``view.shape``, or None if it has none."""
    if view.perm is not None or math.prod(view.shape) == 0:
        return None
    shape = view.shape
    if 2 <= len(shape) <= 5 and view.shape3 == (shape[0], shape[1], math.prod(shape[2:])):
        return shape
    a, k, b = view.shape3
    return (a, k) if b == 1 else (a, k, b)


def _worth_it(name: str, view: _norm.View) -> bool:
    """Whether the kernel ``name`` runs on arrays of ``view`` under the current use_ideep."""
    from catena.configuration import config

    if config.use_ideep == 'always':
        return True
    return view.m * view.shape3[1] >= AUTO_MIN_SIZE and view.shape3[2] <= AUTO_MAX_SPATIAL[name]


def _eps_ok(eps: float) -> bool:
    return bool(math.isfinite(eps) and eps >= 0.0)


def _view(node: Any, x: Any, gamma: Any, function: str) -> _norm.View:
    """Resolves ``node.axis`` as the generic forward does, setting ``axis``/``key_axis``."""
    node.axis, node.key_axis = _norm.resolve_axes(x.ndim, gamma.ndim, node.axis, function)
    view = _norm.view_for(x.shape, node.axis, node.key_axis)
    return view


_BLOCKED_16C = {3: _capi.FORMAT_NCW16C, 4: _capi.FORMAT_NCHW16C, 5: _capi.FORMAT_NCDHW16C}


def _desc(shape: tuple[int, ...], blocked: bool) -> MemoryDesc:
    """The layout oneDNN computes in: plain, or blocked by 16 channels.

    oneDNN 3.2 has JIT batch normalization for blocked and channels-last
    layouts only; on plain NCHW it runs a scalar loop several times slower
    than the two reorders the blocked layout costs (:class:`Operation` does them).
    """
    if not blocked:
        return MemoryDesc.plain(shape, _common.FLOAT32)
    return MemoryDesc.tagged(shape, _common.FLOAT32, _BLOCKED_16C[len(shape)])


def _forward_pd(shape: tuple[int, ...], eps: float, flags: int, prop_kind: int,
                blocked: bool) -> PrimitiveDesc:
    desc = _desc(shape, blocked)
    return PrimitiveDesc('dnnl_batch_normalization_forward_primitive_desc_create',
                         _primitive.engine(), prop_kind, desc, desc, eps, flags, None)


def _backward_pd(shape: tuple[int, ...], eps: float, flags: int,
                 blocked: bool) -> PrimitiveDesc:
    desc = _desc(shape, blocked)
    return PrimitiveDesc('dnnl_batch_normalization_backward_primitive_desc_create',
                         _primitive.engine(), _capi.BACKWARD, desc, desc, desc, eps, flags,
                         _forward_pd(shape, eps, flags, _capi.FORWARD_TRAINING, blocked), None)


def _best_pd(shape: tuple[int, ...], make: Callable[[bool], PrimitiveDesc]) -> PrimitiveDesc:
    """``make(blocked)``: blocked when it has 16 channels or more and a JIT implementation."""
    if len(shape) in _BLOCKED_16C and shape[1] >= 16:
        pd = make(True)
        if not pd.implementation.startswith('ref'):
            return pd
    return make(False)


def _build_training(shape: tuple[int, ...], eps: float) -> Operation:
    c = (shape[1],)
    weights = (_capi.QUERY_WEIGHTS_MD, 0)
    pd = _best_pd(shape, lambda blocked: _forward_pd(shape, eps, _TRAINING,
                                                     _capi.FORWARD_TRAINING, blocked))
    return Operation('batch_normalization', pd, _common.FLOAT32,
                     [(_capi.ARG_SRC, shape, _capi.QUERY_SRC_MD),
                      (_capi.ARG_SCALE, c, weights), (_capi.ARG_SHIFT, c, weights)],
                     [(_capi.ARG_DST, shape, _capi.QUERY_DST_MD),
                      (_capi.ARG_MEAN, c, (_capi.QUERY_DST_MD, 1)),
                      (_capi.ARG_VARIANCE, c, (_capi.QUERY_DST_MD, 2))])


def _build_inference(shape: tuple[int, ...], eps: float) -> Operation:
    c = (shape[1],)
    weights = (_capi.QUERY_WEIGHTS_MD, 0)
    pd = _best_pd(shape, lambda blocked: _forward_pd(shape, eps, _GLOBAL_STATS,
                                                     _capi.FORWARD_INFERENCE, blocked))
    return Operation('fixed_batch_normalization', pd, _common.FLOAT32,
                     [(_capi.ARG_SRC, shape, _capi.QUERY_SRC_MD),
                      (_capi.ARG_MEAN, c, (_capi.QUERY_SRC_MD, 1)),
                      (_capi.ARG_VARIANCE, c, (_capi.QUERY_SRC_MD, 2)),
                      (_capi.ARG_SCALE, c, weights), (_capi.ARG_SHIFT, c, weights)],
                     [(_capi.ARG_DST, shape, _capi.QUERY_DST_MD)])


def _build_backward(name: str, shape: tuple[int, ...], eps: float, flags: int) -> Operation:
    c = (shape[1],)
    diff_weights = (_capi.QUERY_DIFF_WEIGHTS_MD, 0)
    pd = _best_pd(shape, lambda blocked: _backward_pd(shape, eps, flags, blocked))
    return Operation(name, pd, _common.FLOAT32,
                     [(_capi.ARG_SRC, shape, _capi.QUERY_SRC_MD),
                      (_capi.ARG_MEAN, c, (_capi.QUERY_SRC_MD, 1)),
                      (_capi.ARG_VARIANCE, c, (_capi.QUERY_SRC_MD, 2)),
                      (_capi.ARG_DIFF_DST, shape, _capi.QUERY_DIFF_DST_MD),
                      (_capi.ARG_SCALE, c, (_capi.QUERY_WEIGHTS_MD, 0))],
                     [(_capi.ARG_DIFF_SRC, shape, _capi.QUERY_DIFF_SRC_MD),
                      (_capi.ARG_DIFF_SCALE, c, diff_weights),
                      (_capi.ARG_DIFF_SHIFT, c, diff_weights)])


def _channels(a: Any) -> numpy.ndarray:
    """A per-channel array as a C-contiguous ``(K,)`` vector."""
    return _common.contiguous(a.reshape(-1))


def _grad_shape(node: Any, x: Any, gy: Any) -> tuple[int, ...] | None:
    """The oneDNN shape for a grad node's ``x`` and ``gy`` (of the forward's ``view``)."""
    view = node.view
    if x.shape != view.shape or gy.shape != view.shape or not _eps_ok(node.eps):
        return None
    return _dnnl_shape(view)


def batch_normalization(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``BatchNormalization.forward`` (batch statistics) on oneDNN, or Fallback."""
    x, gamma, beta = inputs
    if not _common.all_float32(x, gamma, beta) or not _eps_ok(node.eps):
        return Fallback
    view = _view(node, x, gamma, 'batch_normalization')
    shape = _dnnl_shape(view)
    # One element per channel makes the generic code warn (the output is all beta).
    if shape is None or view.m <= 1 or not _worth_it('batch_normalization', view):
        return Fallback
    eps = float(node.eps)
    operation = _primitive.cached(('batch_normalization', shape, eps),
                                  lambda: _build_training(shape, eps))
    if operation is None:
        return Fallback
    k = shape[1]
    y = numpy.empty(x.shape, _common.FLOAT32)
    mean = numpy.empty(k, _common.FLOAT32)
    var = numpy.empty(k, _common.FLOAT32)
    operation(_common.contiguous(x), _channels(gamma), _channels(beta), y, mean, var)
    node.retain_inputs((0, 1))
    node.view = view
    node.mean = mean
    node.inv_std = _norm.inverse_std(numpy, var, eps)
    if node.running_mean is not None:
        # The node's own update: the same shape checks and m / (m - 1) correction.
        node._update_running(numpy, gamma, mean, var, view.m)
    _common.mark(node, operation)
    return y,


def _variance_for(inv_std: numpy.ndarray) -> numpy.ndarray:
    """The variance that gives ``inv_std`` with epsilon 0: ``inv_std ** -2``."""
    return (inv_std.astype(numpy.float64) ** -2).astype(_common.FLOAT32)


def batch_normalization_grad(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``BatchNormalizationGrad.forward`` (``x, gamma, gy``) on oneDNN, or Fallback."""
    x, gamma, gy = inputs
    if not _common.all_float32(x, gamma, gy, node.mean, node.inv_std):
        return Fallback
    shape = _grad_shape(node, x, gy)
    if (shape is None or node.view.m <= 1
            or not _worth_it('batch_normalization_grad', node.view)):
        return Fallback
    # The node holds 1 / sqrt(var + eps), not var: oneDNN gets var + eps and epsilon 0
    # (one primitive then serves every eps).
    operation = _primitive.cached(
        ('batch_normalization_grad', shape),
        lambda: _build_backward('batch_normalization_grad', shape, 0.0, _TRAINING))
    if operation is None:
        return Fallback
    k = shape[1]
    gx = numpy.empty(x.shape, _common.FLOAT32)
    ggamma = numpy.empty(k, _common.FLOAT32)
    gbeta = numpy.empty(k, _common.FLOAT32)
    operation(_common.contiguous(x), _channels(node.mean), _variance_for(node.inv_std),
              _common.contiguous(gy), _channels(gamma), gx, ggamma, gbeta)
    node.retain_inputs((0, 1, 2))
    node.retain_outputs((1, 2))
    _common.mark(node, operation)
    return gx, ggamma.reshape(gamma.shape), gbeta.reshape(gamma.shape)


def fixed_batch_normalization(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``FixedBatchNormalization.forward`` (given statistics) on oneDNN, or Fallback."""
    x, gamma, beta, mean, var = inputs
    if not _common.all_float32(*inputs) or not _eps_ok(node.eps):
        return Fallback
    view = _view(node, x, gamma, 'fixed_batch_normalization')
    shape = _dnnl_shape(view)
    if shape is None or not _worth_it('fixed_batch_normalization', view):
        return Fallback
    eps = float(node.eps)
    operation = _primitive.cached(('fixed_batch_normalization', shape, eps),
                                  lambda: _build_inference(shape, eps))
    if operation is None:
        return Fallback
    y = numpy.empty(x.shape, _common.FLOAT32)
    var = _channels(var)
    operation(_common.contiguous(x), _channels(mean), var, _channels(gamma), _channels(beta), y)
    node.retain_inputs((0, 1, 3, 4))
    node.view = view
    node.inv_std = _norm.inverse_std(numpy, var, eps)
    _common.mark(node, operation)
    return y,


def fixed_batch_normalization_grad(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``FixedBatchNormalizationGrad.forward`` (``x, gamma, mean, var, gy``) on oneDNN."""
    x, gamma, mean, var, gy = inputs
    s = node.inv_std
    if not _common.all_float32(*inputs, s):
        return Fallback
    shape = _grad_shape(node, x, gy)
    if shape is None or not _worth_it('fixed_batch_normalization_grad', node.view):
        return Fallback
    eps = float(node.eps)
    operation = _primitive.cached(
        ('fixed_batch_normalization_grad', shape, eps),
        lambda: _build_backward('fixed_batch_normalization_grad', shape, eps, _GLOBAL_STATS))
    if operation is None:
        return Fallback
    k = shape[1]
    gx = numpy.empty(x.shape, _common.FLOAT32)
    ggamma = numpy.empty(k, _common.FLOAT32)
    gbeta = numpy.empty(k, _common.FLOAT32)
    operation(_common.contiguous(x), _channels(mean), _channels(var), _common.contiguous(gy),
              _channels(gamma), gx, ggamma, gbeta)
    node.retain_inputs((0, 1, 2, 3, 4))
    node.retain_outputs((1, 2))
    _common.mark(node, operation)
    # The statistics' gradients, formed from ggamma and gbeta as the generic code does.
    gamma_s = gamma.reshape(-1) * s
    gmean = -gamma_s * gbeta
    gvar = -0.5 * gamma_s * s * ggamma
    return (gx, ggamma.reshape(gamma.shape), gbeta.reshape(gamma.shape),
            gmean.reshape(gamma.shape), gvar.reshape(gamma.shape))


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.normalization import batch_normalization as nodes

    return [(nodes.BatchNormalization, batch_normalization),
            (nodes.BatchNormalizationGrad, batch_normalization_grad),
            (nodes.FixedBatchNormalization, fixed_batch_normalization),
            (nodes.FixedBatchNormalizationGrad, fixed_batch_normalization_grad)]
