"""oneDNN kernels of ``linear``: the forward, the input gradient and the weight gradient.

``LinearFunction`` computes ``y = x W^T + b`` for ``x`` ``(n, in)``, ``W``
``(out, in)`` and ``b`` ``(out,)`` (``F.linear`` flattens batch axes before
the node sees ``x``). Every argument keeps its plain row-major layout, so a
large fully connected layer (VGG's 25088x4096 ``fc6``) is never reordered:
letting oneDNN choose the layouts picks a blocked-weight implementation
whose per-call reorder of ``W`` made it 2-5x slower.

* The forward is oneDNN's matmul primitive on ``W``'s transposed view (a
  strided descriptor of the same memory) from :data:`MATMUL_MIN_ROWS` rows
  on, where its BRGEMM code measured 1.3-1.8x faster than the inner product's
  JIT GEMM; below that, and always for a single row, the inner product
  forward is faster.
* The input gradient ``gy W`` and the weight gradient ``gy^T x`` are the
  inner product's backward-data and backward-weights primitives, as fast as
  matmul at large batches and faster at small ones.

Under ``use_ideep='auto'`` products of fewer than :data:`AUTO_MIN_MACS`
multiply-accumulates run NumPy's ``dot``: a oneDNN call costs a few
microseconds of fixed overhead that BLAS does not have.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from catena.backends import Fallback
from catena.configuration import config
from catena_intel64 import _capi, _primitive
from catena_intel64._primitive import MemoryDesc, Operation, PrimitiveDesc
from catena_intel64.kernels import _common

AUTO_MIN_MACS = 1 << 20
"""Under 'auto', smaller products (``n * in * out``) are left to NumPy."""

MATMUL_MIN_ROWS = 8
"""The forward runs on the matmul primitive from this many rows of ``x`` on."""

def _declines(n: int, n_in: int, n_out: int) -> bool:
    """Whether the kernel leaves an ``(n, in) x (in, out)`` product to the generic code."""
    if n == 0 or n_in == 0 or n_out == 0:
        return True
    return config.use_ideep == 'auto' and n * n_in * n_out < AUTO_MIN_MACS


def _plain(shape: tuple[int, ...]) -> MemoryDesc:
    return MemoryDesc.plain(shape, _common.FLOAT32)


def _strided(shape: Sequence[int], strides: Sequence[int]) -> MemoryDesc:
    return MemoryDesc.strided(shape, _common.FLOAT32, strides)


def _forward_pd(n: int, n_in: int, n_out: int, with_bias: bool) -> PrimitiveDesc:
    """The forward inner product (also the backward passes' hint), all layouts plain."""
    return PrimitiveDesc(
        'dnnl_inner_product_forward_primitive_desc_create', _primitive.engine(),
        _capi.FORWARD_TRAINING, _plain((n, n_in)), _plain((n_out, n_in)),
        _plain((n_out,)) if with_bias else None, _plain((n, n_out)), None)


def _build_forward(n: int, n_in: int, n_out: int, with_bias: bool) -> Operation:
    if n < MATMUL_MIN_ROWS:
        inputs: list[tuple[int, Any, _primitive.Query]] = [
            (_capi.ARG_SRC, (n, n_in), _capi.QUERY_SRC_MD),
            (_capi.ARG_WEIGHTS, (n_out, n_in), _capi.QUERY_WEIGHTS_MD)]
        if with_bias:
            inputs.append((_capi.ARG_BIAS, (n_out,), (_capi.QUERY_WEIGHTS_MD, 1)))
        return Operation('linear', _forward_pd(n, n_in, n_out, with_bias),
                         _common.FLOAT32, inputs,
                         [(_capi.ARG_DST, (n, n_out), _capi.QUERY_DST_MD)])
    # y = x W^T: matmul's (in, out) weights are W's own memory seen through strides (1, in).
    w_t = _strided((n_in, n_out), (1, n_in))
    pd = PrimitiveDesc('dnnl_matmul_primitive_desc_create', _primitive.engine(),
                       _plain((n, n_in)), w_t, _plain((1, n_out)) if with_bias else None,
                       _plain((n, n_out)), None)
    inputs = [(_capi.ARG_SRC, (n, n_in), _capi.QUERY_SRC_MD),
              (_capi.ARG_WEIGHTS, w_t, _capi.QUERY_WEIGHTS_MD)]
    if with_bias:
        inputs.append((_capi.ARG_BIAS, (1, n_out), (_capi.QUERY_WEIGHTS_MD, 1)))
    return Operation('linear', pd, _common.FLOAT32, inputs,
                     [(_capi.ARG_DST, (n, n_out), _capi.QUERY_DST_MD)])


def linear(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``LinearFunction.forward`` (inputs ``x``, ``W`` and maybe ``b``) on oneDNN, or Fallback."""
    x, W = inputs[:2]
    b = inputs[2] if len(inputs) == 3 else None
    if not _common.all_float32(x, W, b):
        return Fallback
    (n, n_in), n_out = x.shape, W.shape[0]
    if _declines(n, n_in, n_out):
        return Fallback
    with_bias = b is not None
    operation = _primitive.cached(('linear', n, n_in, n_out, with_bias),
                                  lambda: _build_forward(n, n_in, n_out, with_bias))
    if operation is None:
        return Fallback
    y = numpy.empty((n, n_out), _common.FLOAT32)
    arrays = (x, W) if b is None else (x, W, b)
    operation(*[_common.contiguous(a) for a in arrays], y)
    node.retain_inputs((0, 1))
    _common.mark(node, operation)
    return y,


def _build_grad_data(n: int, n_in: int, n_out: int) -> Operation:
    pd = PrimitiveDesc(
        'dnnl_inner_product_backward_data_primitive_desc_create', _primitive.engine(),
        _plain((n, n_in)), _plain((n_out, n_in)), _plain((n, n_out)),
        _forward_pd(n, n_in, n_out, False), None)
    return Operation('linear_grad_data', pd, _common.FLOAT32,
                     [(_capi.ARG_DIFF_DST, (n, n_out), _capi.QUERY_DIFF_DST_MD),
                      (_capi.ARG_WEIGHTS, (n_out, n_in), _capi.QUERY_WEIGHTS_MD)],
                     [(_capi.ARG_DIFF_SRC, (n, n_in), _capi.QUERY_DIFF_SRC_MD)])


def linear_grad_data(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``LinearGradData.forward`` (inputs ``W``, ``gy``; ``gx = gy W``) on oneDNN, or Fallback."""
    W, gy = inputs
    if not _common.all_float32(W, gy) or W.ndim != 2 or gy.ndim != 2:
        return Fallback
    (n_out, n_in), n = W.shape, gy.shape[0]
    if gy.shape[1] != n_out or _declines(n, n_in, n_out):
        return Fallback
    operation = _primitive.cached(('linear_grad_data', n, n_in, n_out),
                                  lambda: _build_grad_data(n, n_in, n_out))
    if operation is None:
        return Fallback
    gx = numpy.empty((n, n_in), _common.FLOAT32)
    operation(_common.contiguous(gy), _common.contiguous(W), gx)
    node.retain_inputs((0, 1))
    _common.mark(node, operation)
    return gx,


def _build_grad_weight(n: int, n_in: int, n_out: int) -> Operation:
    pd = PrimitiveDesc(
        'dnnl_inner_product_backward_weights_primitive_desc_create', _primitive.engine(),
        _plain((n, n_in)), _plain((n_out, n_in)), None, _plain((n, n_out)),
        _forward_pd(n, n_in, n_out, False), None)
    return Operation('linear_grad_weight', pd, _common.FLOAT32,
                     [(_capi.ARG_SRC, (n, n_in), _capi.QUERY_SRC_MD),
                      (_capi.ARG_DIFF_DST, (n, n_out), _capi.QUERY_DIFF_DST_MD)],
                     [(_capi.ARG_DIFF_WEIGHTS, (n_out, n_in), _capi.QUERY_DIFF_WEIGHTS_MD)])


def linear_grad_weight(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``LinearGradWeight.forward`` (inputs ``x``, ``gy``; ``gW = gy^T x``) on oneDNN, or Fallback.

    The core's node computes only ``gW``; the bias gradient is a separate
    ``sum`` of ``gy`` over the batch axis.
    """
    x, gy = inputs
    if not _common.all_float32(x, gy) or x.ndim != 2 or gy.ndim != 2:
        return Fallback
    (n, n_in), n_out = x.shape, gy.shape[1]
    if gy.shape[0] != n or _declines(n, n_in, n_out):
        return Fallback
    operation = _primitive.cached(('linear_grad_weight', n, n_in, n_out),
                                  lambda: _build_grad_weight(n, n_in, n_out))
    if operation is None:
        return Fallback
    gW = numpy.empty((n_out, n_in), _common.FLOAT32)
    operation(_common.contiguous(x), _common.contiguous(gy), gW)
    node.retain_inputs((0, 1))
    _common.mark(node, operation)
    return gW,


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.connection import linear as nodes

    return [(nodes.LinearFunction, linear),
            (nodes.LinearGradData, linear_grad_data),
            (nodes.LinearGradWeight, linear_grad_weight)]
