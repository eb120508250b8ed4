"""oneDNN kernel of ``concat``: float32 arrays joined along any axis.

oneDNN's concat primitive copies each plain C-contiguous input into its
place in the plain output; the primitive is built per (input shapes, axis).
The node's backward (``ConcatGrad``) cuts the output gradient into views,
so only the forward has a kernel; like the generic forward, the kernel
records the axis and the inputs' sizes along it on the node.

Under ``use_ideep='auto'`` the kernel always declines (see
:data:`AUTO_MIN_BYTES`): a concatenation is a memory copy, and oneDNN's
measured 0.4-0.85x the speed of ``numpy.concatenate`` (one thread each) at
every size from 100 bytes to 13 MB; under ``'always'`` it runs every
supported case.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy

from catena.backends import Fallback
from catena.configuration import config
from catena_intel64 import _capi, _primitive
from catena_intel64._primitive import MemoryDesc, Operation, PrimitiveDesc
from catena_intel64.kernels import _common

AUTO_MIN_BYTES = float('inf')
"""Under 'auto', the least output size in bytes run on oneDNN: never (NumPy is faster)."""


def _build(shapes: tuple[tuple[int, ...], ...], axis: int,
           y_shape: tuple[int, ...]) -> Operation:
    f32 = _common.FLOAT32
    sources = [MemoryDesc.plain(shape, f32) for shape in shapes]
    handles = (ctypes.c_void_p * len(sources))(*[md.handle.value for md in sources])
    pd = PrimitiveDesc('dnnl_concat_primitive_desc_create', _primitive.engine(),
                       MemoryDesc.plain(y_shape, f32), len(shapes), axis, handles,
                       None)
    inputs: list[tuple[int, tuple[int, ...], _primitive.Query]] = [
        (_capi.ARG_MULTIPLE_SRC + i, shape, (_capi.QUERY_SRC_MD, i))
        for i, shape in enumerate(shapes)]
    return Operation('concat', pd, f32, inputs, [(_capi.ARG_DST, y_shape, _capi.QUERY_DST_MD)])


def concat(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``Concat.forward`` on oneDNN, or Fallback."""
    if config.use_ideep == 'auto' and 4 * sum([x.size for x in inputs]) < AUTO_MIN_BYTES:
        return Fallback
    first = inputs[0]
    if not _common.all_float32(*inputs) or not 0 < first.ndim <= _capi.MAX_NDIMS:
        return Fallback
    axis = node.axis % first.ndim
    shapes = tuple(x.shape for x in inputs)
    sizes = [shape[axis] for shape in shapes]
    y_shape = first.shape[:axis] + (sum(sizes),) + first.shape[axis + 1:]
    if any(x.size == 0 for x in inputs):
        return Fallback
    operation = _primitive.cached(('concat', shapes, axis),
                                  lambda: _build(shapes, axis, y_shape))
    if operation is None:
        return Fallback
    y = numpy.empty(y_shape, _common.FLOAT32)
    operation(*[_common.contiguous(x) for x in inputs], y)
    node._axis = axis
    node._sizes = sizes
    _common.mark(node, operation)
    return y,


def registrations() -> list[tuple[type, Any, float]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.array import concat as nodes

    # Under 'auto' the core then skips the kernel without calling it.
    return [(nodes.Concat, concat, AUTO_MIN_BYTES)]
