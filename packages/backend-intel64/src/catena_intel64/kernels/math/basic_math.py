"""oneDNN kernels of the multi-input add: ``Add`` (``x + y``) and ``MultiAdd`` (``F.add``).

Inputs of one shape and dtype float32 are added by oneDNN's binary-add
primitive, seen as flat vectors (an element-wise sum does not care about the
shape), so one primitive per element count serves every shape: ``x0 + x1``
into a new array, then ``y += x`` in place for each further input. The sum
primitive, which adds ``n`` arrays in one pass, was measured 2-6x slower
than NumPy's ``+`` at every size and input count tried (its float32 loop is
not vectorized the way binary's JIT code is), so it is not used.
Broadcasting, 0-d and empty inputs, a single input and other dtypes are left
to the generic code. The backward passes are ``sum_to`` of the output
gradient; the kernels record the input shapes as the generic forwards do.

Under ``use_ideep='auto'`` the kernels always decline: NumPy's ``+`` is
memory-bound and was measured as fast as oneDNN's binary add at every size
(see :data:`AUTO_MIN_ELEMENTS`); under ``'always'`` they run every supported
case.
"""

from __future__ import annotations

from typing import Any

import numpy

from catena.backends import Fallback
from catena.configuration import config
from catena_intel64 import _capi, _primitive
from catena_intel64._primitive import MemoryDesc, Operation, PrimitiveDesc
from catena_intel64.kernels import _common

AUTO_MIN_ELEMENTS = float('inf')
"""Under 'auto', the least element count run on oneDNN: never (NumPy is as fast)."""


def _build(size: int) -> Operation:
    f32 = _common.FLOAT32
    flat = (size,)
    pd = PrimitiveDesc('dnnl_binary_primitive_desc_create', _primitive.engine(),
                       _capi.BINARY_ADD, MemoryDesc.plain(flat, f32),
                       MemoryDesc.plain(flat, f32), MemoryDesc.plain(flat, f32),
                       None)
    return Operation('add', pd, f32,
                     [(_capi.ARG_SRC, flat, (_capi.QUERY_SRC_MD, 0)),
                      (_capi.ARG_SRC_1, flat, (_capi.QUERY_SRC_MD, 1))],
                     [(_capi.ARG_DST, flat, _capi.QUERY_DST_MD)])


def _sum(inputs: tuple[Any, ...]) -> Any:
    """The sum of ``inputs`` on oneDNN, or Fallback (also for what 'auto' leaves to NumPy)."""
    first = inputs[0]
    shape, size = first.shape, first.size
    if config.use_ideep == 'auto' and size < AUTO_MIN_ELEMENTS:
        return Fallback
    if not _common.all_float32(*inputs) or not shape or size == 0:
        return Fallback
    for x in inputs[1:]:
        if x.shape != shape:
            return Fallback
    operation = _primitive.cached(('add', size), lambda: _build(size))
    if operation is None:
        return Fallback
    y = numpy.empty(shape, _common.FLOAT32)
    operation(_common.contiguous(first), _common.contiguous(inputs[1]), y)
    for x in inputs[2:]:
        operation(y, _common.contiguous(x), y)
    return operation, y


def add(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``Add.forward`` (two inputs of one shape) on oneDNN, or Fallback."""
    result = _sum(inputs)
    if result is Fallback:
        return Fallback
    operation, y = result
    _common.mark(node, operation)
    return y,


def multi_add(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``MultiAdd.forward`` (two or more inputs of one shape) on oneDNN, or Fallback."""
    if len(inputs) < 2:
        return Fallback
    result = _sum(inputs)
    if result is Fallback:
        return Fallback
    operation, y = result
    node.shapes = [x.shape for x in inputs]
    _common.mark(node, operation)
    return y,


def registrations() -> list[tuple[type, Any, float]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.math import basic_math as nodes

    return [(nodes.Add, add, AUTO_MIN_ELEMENTS), (nodes.MultiAdd, multi_add, AUTO_MIN_ELEMENTS)]
