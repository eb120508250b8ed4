"""cuDNN kernels of ``batch_normalization`` and ``fixed_batch_normalization``.

The core sees ``x`` as ``(A, K, B)`` (:class:`catena.functions.normalization.
_common.View`): statistics per channel ``K`` over ``A`` and ``B``. When the
kept axes are adjacent that is a reshape of a C-contiguous ``x``, and cuDNN
is told the 4-d tensor ``(A, K, B, 1)`` with per-channel tensors ``(1, K, 1,
1)``; kept axes that are not adjacent (a transpose) decline, as do empty
arrays and dtype mixes whose statistics dtype is not the one cuDNN computes
in (float32 for float16/float32 inputs, float64 for float64 inputs).

Three frontend graphs serve three nodes:

* ``BatchNormalization`` (training): ``batchnorm`` gives ``y``, the batch
  mean and ``inv_var = 1 / sqrt(var + eps)``, which are the node's ``mean``
  and ``inv_std``. The running averages are updated by the node's own code
  (``decay``, Chainer's unbiased ``m / (m - 1)`` correction) from the mean
  and ``var = inv_var ** -2 - eps``; cuDNN's own running-average outputs
  (whose variance correction is cuDNN's) go to scratch buffers. An ``eps``
  below :data:`MIN_EPSILON` (cuDNN's ``CUDNN_BN_MIN_EPSILON``) declines, and
  so does a single element per channel (the generic code warns).
* ``FixedBatchNormalization``: ``batchnorm_inference``, which takes the
  inverse standard deviation; it is computed from ``var`` and ``eps`` exactly
  as the generic code computes the node's ``inv_std``.
* ``BatchNormalizationGrad``: ``batchnorm_backward`` from the saved mean and
  ``inv_std`` (whoever computed them). ``FixedBatchNormalizationGrad`` stays
  generic.

``catena.config.cudnn_fast_batch_normalization`` changes nothing here: the
frontend's graphs have no counterpart of the legacy API's
``CUDNN_BATCHNORM_SPATIAL_PERSISTENT`` mode; cuDNN's heuristics choose the
kernel.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy

from catena.backends import Fallback
from catena.functions.normalization import _common as _norm
from catena_cuda import _runtime
from catena_cuda.kernels import _common, _cudnn

CONFIG_KEY = 'use_cudnn'

MIN_EPSILON = 1e-5
"""The smallest ``eps`` of a training forward on cuDNN (``CUDNN_BN_MIN_EPSILON``)."""

_STATS_TYPES = {'float32': 'FLOAT', 'float64': 'DOUBLE'}


class BNGeometry(NamedTuple):
    """One batch normalization as cuDNN is told it.

    Attributes:
        shape: ``(A, K, B, 1)``.
        dtype: The NumPy dtype name of ``x`` (and ``y``, ``gy``, ``gx``).
        stats_dtype: The NumPy dtype name of the per-channel tensors.
    """

    shape: tuple[int, int, int, int]
    dtype: str
    stats_dtype: str


def geometry(view: _norm.View, x_dtype: Any, gamma_dtype: Any,
             training: bool) -> BNGeometry | None:
    """The geometry of a batch normalization of ``x`` seen through ``view``, or None.

    Args:
        view: The node's view of ``x``.
        x_dtype: The dtype of ``x``.
        gamma_dtype: The dtype of ``gamma`` (and of the other per-channel arrays).
        training: Whether statistics are computed (they need two elements
            per channel or more).

    Returns:
        The :class:`BNGeometry`, or None when cuDNN cannot compute it here.
    """
    if view.perm is not None or math.prod(view.shape) == 0:
        return None
    if training and view.m <= 1:
        return None
    x_dtype = numpy.dtype(x_dtype)
    if _cudnn.data_types(x_dtype) is None:
        return None
    stats = _norm.compute_dtype(x_dtype, numpy.dtype(gamma_dtype))
    wanted = numpy.float64 if x_dtype == numpy.float64 else numpy.float32
    if stats != wanted:
        return None
    a, k, b = view.shape3
    return BNGeometry((a, k, b, 1), x_dtype.name, stats.name)


def eps_ok(eps: float) -> bool:
    """Whether cuDNN computes a training forward with this ``eps``."""
    return bool(math.isfinite(eps) and eps >= MIN_EPSILON)


def variance(inv_std: Any, eps: float) -> Any:
    """The biased batch variance that gives ``inv_std = 1 / sqrt(var + eps)`` (>= 0)."""
    xp = _array_module(inv_std)
    var = inv_std.astype(numpy.float64) ** -2 - eps
    return xp.maximum(var, 0.0).astype(inv_std.dtype)


# ---------------------------------------------------------------------------
# Graphs
# ---------------------------------------------------------------------------

def _declare(graph: Any, name: str, shape: tuple[int, ...], data_type: Any) -> Any:
    return graph.tensor(name=name, dim=list(shape),
                        stride=list(_cudnn.row_major_strides(shape)), data_type=data_type)


def _types(cudnn: Any, g: BNGeometry) -> tuple[Any, Any]:
    io_name = (_cudnn.data_types(g.dtype) or ('',))[0]
    return _cudnn.cudnn_type(cudnn, io_name), _cudnn.cudnn_type(cudnn,
                                                                _STATS_TYPES[g.stats_dtype])


def _new_graph(cudnn: Any, op: str, g: BNGeometry, handle: Any) -> Any:
    io, stats = _types(cudnn, g)
    return cudnn.pygraph(name=f'catena_{op}', io_data_type=io, intermediate_data_type=stats,
                         compute_data_type=stats, handle=handle)


def _mark(tensor: Any, name: str, shape: tuple[int, ...], data_type: Any) -> Any:
    """Makes an op's output a graph output of ``shape`` (C-contiguous) and ``data_type``."""
    tensor.set_output(True).set_data_type(data_type).set_dim(list(shape)).set_stride(
        list(_cudnn.row_major_strides(shape)))
    tensor.set_name(name)
    return tensor


def channel_shape(g: BNGeometry) -> tuple[int, int, int, int]:
    """The shape of the per-channel tensors, ``(1, K, 1, 1)``."""
    return (1, g.shape[1], 1, 1)


def training_graph(g: BNGeometry) -> _cudnn.GraphMaker:
    """``make(cudnn, handle)`` for the training forward (``batchnorm``)."""
    def make(cudnn: Any, handle: Any) -> tuple[Any, Mapping[str, Any]]:
        graph = _new_graph(cudnn, 'batchnorm', g, handle)
        io, stats = _types(cudnn, g)
        c = channel_shape(g)
        t = {'x': _declare(graph, 'x', g.shape, io)}
        for name in ('scale', 'bias', 'in_mean', 'in_var'):
            t[name] = _declare(graph, name, c, stats)
        for name in ('epsilon', 'momentum'):
            t[name] = graph.tensor(name=name, dim=[1, 1, 1, 1], stride=[1, 1, 1, 1],
                                   data_type=stats, is_pass_by_value=True)
        outs = graph.batchnorm(input=t['x'], scale=t['scale'], bias=t['bias'],
                               in_running_mean=t['in_mean'], in_running_var=t['in_var'],
                               epsilon=t['epsilon'], momentum=t['momentum'],
                               compute_data_type=stats, name='batchnorm')
        t['y'] = _mark(outs[0], 'y', g.shape, io)
        for name, out in zip(('mean', 'inv_var', 'next_mean', 'next_var'), outs[1:]):
            t[name] = _mark(out, name, c, stats)
        return graph, t

    return make


def inference_graph(g: BNGeometry) -> _cudnn.GraphMaker:
    """``make(cudnn, handle)`` for the inference forward (``batchnorm_inference``)."""
    def make(cudnn: Any, handle: Any) -> tuple[Any, Mapping[str, Any]]:
        graph = _new_graph(cudnn, 'batchnorm_inference', g, handle)
        io, stats = _types(cudnn, g)
        t = {'x': _declare(graph, 'x', g.shape, io)}
        for name in ('mean', 'inv_var', 'scale', 'bias'):
            t[name] = _declare(graph, name, channel_shape(g), stats)
        y = graph.batchnorm_inference(input=t['x'], mean=t['mean'], inv_variance=t['inv_var'],
                                      scale=t['scale'], bias=t['bias'],
                                      compute_data_type=stats, name='batchnorm_inference')
        t['y'] = _mark(y, 'y', g.shape, io)
        return graph, t

    return make


def backward_graph(g: BNGeometry) -> _cudnn.GraphMaker:
    """``make(cudnn, handle)`` for the gradients (``batchnorm_backward``)."""
    def make(cudnn: Any, handle: Any) -> tuple[Any, Mapping[str, Any]]:
        graph = _new_graph(cudnn, 'batchnorm_backward', g, handle)
        io, stats = _types(cudnn, g)
        c = channel_shape(g)
        t = {'dy': _declare(graph, 'dy', g.shape, io), 'x': _declare(graph, 'x', g.shape, io)}
        for name in ('scale', 'mean', 'inv_var'):
            t[name] = _declare(graph, name, c, stats)
        dx, dscale, dbias = graph.batchnorm_backward(
            grad=t['dy'], input=t['x'], scale=t['scale'], mean=t['mean'],
            inv_variance=t['inv_var'], compute_data_type=stats, name='batchnorm_backward')
        t['dx'] = _mark(dx, 'dx', g.shape, io)
        t['dscale'] = _mark(dscale, 'dscale', c, stats)
        t['dbias'] = _mark(dbias, 'dbias', c, stats)
        return graph, t

    return make


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------

def _channels(a: Any, dtype: Any) -> Any:
    """A per-channel array as a contiguous ``(K,)`` vector of ``dtype``."""
    return _cudnn.operand(a.reshape(-1).astype(dtype, copy=False))


def _scalar(value: float, dtype: Any) -> numpy.ndarray:
    """A host pass-by-value scalar."""
    return numpy.full((1, 1, 1, 1), value, dtype)


def _run(op: str, g: BNGeometry, make: _cudnn.GraphMaker, buffers: dict[str, Any],
         device: Any) -> bool:
    """Runs the plan of ``op`` on ``buffers``; False when cuDNN declines it."""
    with device:
        plan = _cudnn.plan(op, g, numpy.dtype(g.dtype), device.id, make, buffers)
        if plan is None:
            return False
        _cudnn.execute(plan, buffers, device.id)
    return True


def batch_normalization(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``BatchNormalization.forward`` (batch statistics) on cuDNN, or Fallback."""
    x, gamma, beta = inputs
    if not _cudnn.usable() or not eps_ok(node.eps):
        return Fallback
    node.axis, node.key_axis = _norm.resolve_axes(x.ndim, gamma.ndim, node.axis,
                                                  'batch_normalization')
    view = _norm.view_for(x.shape, node.axis, node.key_axis)
    g = geometry(view, x.dtype, gamma.dtype, training=True)
    if g is None:
        return Fallback
    cupy = _runtime.cupy_module()
    stats, k = numpy.dtype(g.stats_dtype), g.shape[1]
    with x.device:
        scale = _channels(gamma, stats)
        buffers = {
            'x': _cudnn.operand(x), 'scale': scale, 'bias': _channels(beta, stats),
            # cuDNN's running averages are not used (see the module docstring).
            'in_mean': scale, 'in_var': scale,
            'epsilon': _scalar(node.eps, stats), 'momentum': _scalar(1.0 - node.decay, stats),
            'y': cupy.empty(x.shape, x.dtype), 'mean': cupy.empty(k, stats),
            'inv_var': cupy.empty(k, stats), 'next_mean': cupy.empty(k, stats),
            'next_var': cupy.empty(k, stats)}
    if not _run('batchnorm', g, training_graph(g), buffers, x.device):
        return Fallback
    node.retain_inputs((0, 1))
    node.view = view
    node.mean, node.inv_std = buffers['mean'], buffers['inv_var']
    if node.running_mean is not None:
        with x.device:
            node._update_running(cupy, gamma, node.mean, variance(node.inv_std, node.eps),
                                 view.m)
    _common.count('batch_normalization')
    return buffers['y'],


def batch_normalization_grad(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``BatchNormalizationGrad.forward`` (``x, gamma, gy``) on cuDNN, or Fallback."""
    x, gamma, gy = inputs
    if not _cudnn.usable():
        return Fallback
    view = node.view
    if x.shape != view.shape or gy.shape != view.shape or gy.dtype != x.dtype:
        return Fallback
    g = geometry(view, x.dtype, gamma.dtype, training=True)
    if g is None or node.mean.dtype != g.stats_dtype or node.inv_std.dtype != g.stats_dtype:
        return Fallback
    cupy = _runtime.cupy_module()
    stats, k = numpy.dtype(g.stats_dtype), g.shape[1]
    with x.device:
        buffers = {
            'dy': _cudnn.operand(gy), 'x': _cudnn.operand(x), 'scale': _channels(gamma, stats),
            'mean': _channels(node.mean, stats), 'inv_var': _channels(node.inv_std, stats),
            'dx': cupy.empty(x.shape, x.dtype), 'dscale': cupy.empty(k, stats),
            'dbias': cupy.empty(k, stats)}
    if not _run('batchnorm_backward', g, backward_graph(g), buffers, x.device):
        return Fallback
    node.retain_inputs((0, 1, 2))
    node.retain_outputs((1, 2))
    _common.count('batch_normalization_grad')
    with x.device:
        ggamma = buffers['dscale'].astype(gamma.dtype).reshape(gamma.shape)
        gbeta = buffers['dbias'].astype(gamma.dtype).reshape(gamma.shape)
    return buffers['dx'], ggamma, gbeta


def fixed_batch_normalization(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``FixedBatchNormalization.forward`` (given statistics) on cuDNN, or Fallback."""
    x, gamma, beta, mean, var = inputs
    if not _cudnn.usable():
        return Fallback
    node.axis, node.key_axis = _norm.resolve_axes(x.ndim, gamma.ndim, node.axis,
                                                  'fixed_batch_normalization')
    view = _norm.view_for(x.shape, node.axis, node.key_axis)
    g = geometry(view, x.dtype, gamma.dtype, training=False)
    if g is None:
        return Fallback
    cupy = _runtime.cupy_module()
    stats = numpy.dtype(g.stats_dtype)
    with x.device:
        # The node's inv_std, computed as the generic forward computes it.
        inv_std = _norm.inverse_std(cupy, var.reshape(-1).astype(stats), node.eps)
        buffers = {
            'x': _cudnn.operand(x), 'mean': _channels(mean, stats),
            'inv_var': _cudnn.operand(inv_std), 'scale': _channels(gamma, stats),
            'bias': _channels(beta, stats), 'y': cupy.empty(x.shape, x.dtype)}
    if not _run('batchnorm_inference', g, inference_graph(g), buffers, x.device):
        return Fallback
    node.retain_inputs((0, 1, 3, 4))
    node.view = view
    node.inv_std = inv_std
    _common.count('fixed_batch_normalization')
    return buffers['y'],


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.normalization import batch_normalization as nodes

    return [(nodes.BatchNormalization, batch_normalization),
            (nodes.BatchNormalizationGrad, batch_normalization_grad),
            (nodes.FixedBatchNormalization, fixed_batch_normalization)]


def _array_module(array: Any) -> Any:
    from catena import backend

    return backend.get_array_module(array)
