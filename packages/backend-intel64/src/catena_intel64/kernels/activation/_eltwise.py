"""What the element-wise activation kernels share: oneDNN's eltwise primitives on flat arrays.

An element-wise function does not care about shape, so every array is
described to oneDNN as 1-d of its size: one primitive serves every shape of
that size, and the cache key holds the size rather than the shape. Arrays
are handed over C-contiguous (:func:`_common.contiguous`), float32 only.

Three builders cover the five activations:

- :func:`forward`: ``dst = f(src)`` by ``dnnl_eltwise_forward`` with an
  algorithm and its ``alpha``/``beta``;
- :func:`backward`: ``diff_src = diff_dst * f'(...)`` by
  ``dnnl_eltwise_backward``, from ``src`` or, for the
  ``*_use_dst_for_bwd`` algorithms, from ``dst``;
- :func:`multiply`: ``gy * coefficient`` by ``dnnl_binary`` (mul), for the
  gradients whose coefficient the core computes in its backward
  (:class:`~catena.functions.activation._piecewise.PiecewiseLinearGrad`):
  no eltwise algorithm takes a per-element slope, and a product is exact,
  so it agrees with NumPy bit for bit (it also ran about 1.8 times faster
  than the ``relu_use_dst_for_bwd`` backward on the same arrays).

Eltwise primitives are memory-bound: oneDNN wins on large arrays (threads,
vectorised ``exp``/``tanh``) and loses on small ones, where its fixed cost
per call (about 5 us more than the generic path: ctypes calls and the
OpenMP fork) exceeds NumPy's whole computation. Under ``use_ideep='auto'``
each kernel declines arrays smaller than its op's ``THRESHOLD`` (forward) or
``GRAD_THRESHOLD`` (gradient node): the size from which ``FunctionNode.apply``
on oneDNN beat the generic path, measured with 2 OpenMP threads on an idle
AVX-512 CPU with NumPy 2.4 and rounded up. (On cores busy with other
processes the OpenMP threads wait for each other and oneDNN can be several
times slower than that.) Under ``'always'`` a kernel runs every non-empty
float32 array.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy

from catena.backends import Fallback
from catena.configuration import config
from catena_intel64 import _capi, _primitive
from catena_intel64._primitive import MemoryDesc, Operation, PrimitiveDesc
from catena_intel64.kernels import _common

NO_CROSSOVER = sys.maxsize
"""A threshold no array reaches: the kernel runs under ``'always'`` only."""


def declines(size: int, threshold: int) -> bool:
    """Whether a kernel should leave an array of ``size`` elements to NumPy.

    Args:
        size: The number of elements.
        threshold: The op's smallest size worth oneDNN under ``'auto'``.
    """
    if size == 0:
        return True
    return size < threshold and config.use_ideep == 'auto'


def _plain(size: int) -> MemoryDesc:
    return MemoryDesc.plain((size,), _common.FLOAT32)


def _forward_pd(algorithm: int, alpha: float, beta: float, size: int) -> PrimitiveDesc:
    return PrimitiveDesc('dnnl_eltwise_forward_primitive_desc_create', _primitive.engine(),
                         _capi.FORWARD_TRAINING, algorithm, _plain(size), _plain(size),
                         alpha, beta, None)


def _build_forward(name: str, algorithm: int, alpha: float, beta: float,
                   size: int) -> Operation:
    shape = (size,)
    return Operation(name, _forward_pd(algorithm, alpha, beta, size), _common.FLOAT32,
                     [(_capi.ARG_SRC, shape, _capi.QUERY_SRC_MD)],
                     [(_capi.ARG_DST, shape, _capi.QUERY_DST_MD)])


def _build_backward(name: str, algorithm: int, alpha: float, beta: float, size: int,
                    use_dst: bool) -> Operation:
    shape = (size,)
    pd = PrimitiveDesc('dnnl_eltwise_backward_primitive_desc_create', _primitive.engine(),
                       algorithm, _plain(size), _plain(size), _plain(size), alpha, beta,
                       _forward_pd(algorithm, alpha, beta, size), None)
    data = ((_capi.ARG_DST, shape, _capi.QUERY_DST_MD) if use_dst
            else (_capi.ARG_SRC, shape, _capi.QUERY_SRC_MD))
    return Operation(name, pd, _common.FLOAT32,
                     [data, (_capi.ARG_DIFF_DST, shape, _capi.QUERY_DIFF_DST_MD)],
                     [(_capi.ARG_DIFF_SRC, shape, _capi.QUERY_DIFF_SRC_MD)])


def _build_multiply(name: str, size: int) -> Operation:
    shape = (size,)
    pd = PrimitiveDesc('dnnl_binary_primitive_desc_create', _primitive.engine(),
                       _capi.BINARY_MUL, _plain(size), _plain(size), _plain(size), None)
    return Operation(name, pd, _common.FLOAT32,
                     [(_capi.ARG_SRC, shape, _capi.QUERY_SRC_MD),
                      (_capi.ARG_SRC_1, shape, (_capi.QUERY_SRC_MD, 1))],
                     [(_capi.ARG_DST, shape, _capi.QUERY_DST_MD)])


def forward(node: Any, x: Any, name: str, algorithm: int, alpha: float, beta: float,
            threshold: int) -> Any:
    """``f(x)`` by oneDNN's eltwise ``algorithm``, or Fallback.

    Args:
        node: The FunctionNode being applied (marked when the kernel runs).
        x: The input array.
        name: The kernel's name (its count in ``_primitive.calls``).
        algorithm: A ``dnnl_alg_kind_t`` eltwise algorithm (``_capi.ELTWISE_*``).
        alpha: The algorithm's ``alpha``.
        beta: The algorithm's ``beta``.
        threshold: The smallest size run under ``use_ideep='auto'``.

    Returns:
        ``(y,)``, or :data:`~catena.Fallback` for a non-float32 or empty
        input, or a small one under ``'auto'``.
    """
    if x.dtype != _common.FLOAT32 or declines(x.size, threshold):
        return Fallback
    size = x.size
    operation = _primitive.cached(
        ('eltwise', name, algorithm, alpha, beta, size),
        lambda: _build_forward(name, algorithm, alpha, beta, size))
    if operation is None:
        return Fallback
    y = numpy.empty(x.shape, _common.FLOAT32)
    operation(_common.contiguous(x), y)
    _common.mark(node, operation)
    return y,


def backward(node: Any, data: Any, gy: Any, name: str, algorithm: int, alpha: float,
             beta: float, use_dst: bool, threshold: int) -> Any:
    """``gy * f'`` by oneDNN's eltwise backward, or Fallback.

    Args:
        node: The FunctionNode being applied (marked when the kernel runs).
        data: The forward's output when ``use_dst`` (``algorithm`` is then a
            ``*_USE_DST_FOR_BWD`` one), its input otherwise.
        gy: The gradient of the output, of ``data``'s shape.
        name: The kernel's name (its count in ``_primitive.calls``).
        algorithm: A ``dnnl_alg_kind_t`` eltwise algorithm.
        alpha: The algorithm's ``alpha``.
        beta: The algorithm's ``beta``.
        use_dst: Whether ``data`` is the forward's output.
        threshold: The smallest size run under ``use_ideep='auto'``.

    Returns:
        ``(gx,)`` of ``gy``'s shape, or :data:`~catena.Fallback` (non-float32,
        mismatched shapes that the generic code broadcasts, or a small size
        under ``'auto'``).
    """
    if (not _common.all_float32(data, gy) or data.shape != gy.shape
            or declines(gy.size, threshold)):
        return Fallback
    size = gy.size
    operation = _primitive.cached(
        ('eltwise_backward', name, algorithm, alpha, beta, size),
        lambda: _build_backward(name, algorithm, alpha, beta, size, use_dst))
    if operation is None:
        return Fallback
    gx = numpy.empty(gy.shape, _common.FLOAT32)
    operation(_common.contiguous(data), _common.contiguous(gy), gx)
    _common.mark(node, operation)
    return gx,


def multiply(node: Any, gy: Any, coefficient: Any, name: str, threshold: int) -> Any:
    """``gy * coefficient`` by oneDNN's binary primitive, or Fallback.

    Args:
        node: The FunctionNode being applied (marked when the kernel runs).
        gy: The gradient of the output.
        coefficient: An array of ``gy``'s shape.
        name: The kernel's name (its count in ``_primitive.calls``).
        threshold: The smallest size run under ``use_ideep='auto'``.

    Returns:
        ``(gx,)``, or :data:`~catena.Fallback` as :func:`backward` does.
    """
    if (not isinstance(coefficient, numpy.ndarray) or not _common.all_float32(gy, coefficient)
            or coefficient.shape != gy.shape or declines(gy.size, threshold)):
        return Fallback
    size = gy.size
    operation = _primitive.cached(('binary_mul', name, size),
                                  lambda: _build_multiply(name, size))
    if operation is None:
        return Fallback
    gx = numpy.empty(gy.shape, _common.FLOAT32)
    operation(_common.contiguous(gy), _common.contiguous(coefficient), gx)
    _common.mark(node, operation)
    return gx,
