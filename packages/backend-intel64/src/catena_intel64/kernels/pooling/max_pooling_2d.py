"""oneDNN kernels of ``max_pooling_2d``: the forward and its gradient.

Geometry is Chainer's: windows start every ``stride`` pixels of the input
padded with ``pad`` on each side, and ``cover_all`` adds windows at the
bottom and right. oneDNN takes that as its right padding; when the last
window stops short of the image (no ``cover_all``, a stride that does not
divide), the unread bottom rows and right columns are cut off instead, since
oneDNN's padding cannot be negative. oneDNN's max pooling skips padded
pixels, which is what Chainer's ``-inf`` padding amounts to; a window wholly
in the padding has no oneDNN equivalent and is left to the generic code. One
difference remains: a window whose pixels are all ``-inf`` gives float32's
lowest finite value (oneDNN's starting maximum) rather than ``-inf``.

oneDNN's workspace for a plain ``(n, c, out_h, out_w)`` output is plain too
and holds, per window, the row-major tap ``i * kw + j`` of its first maximum:
exactly the node's ``indexes``. The forward kernel therefore hands it to the
node as ``indexes`` (a view, no copy, for windows of up to 127 taps), so that
the generic gradient, the double backward (:class:`MaxPooling2DWithIndexes`)
and ``return_indices`` all work after it; the gradient kernel passes the
``indexes`` back to oneDNN as the workspace, whichever forward made them.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy

from catena.backends import Fallback
from catena.configuration import config
from catena.functions.pooling import _window
from catena_intel64 import _capi, _primitive
from catena_intel64._primitive import MemoryDesc, Operation, PrimitiveDesc
from catena_intel64.kernels import _common

THRESHOLD = 0
"""Under ``use_ideep='auto'``, pooling runs on oneDNN from this many input elements on.

oneDNN's plain-layout pooling beat NumPy at every size measured (from 64
elements on: NumPy's per-call overhead dominates small windows)."""


class Window(NamedTuple):
    """Everything that defines one 2-d pooling's primitives."""

    x_shape: tuple[int, ...]
    src_shape: tuple[int, ...]
    y_shape: tuple[int, ...]
    ksize: tuple[int, int]
    stride: tuple[int, int]
    pad_l: tuple[int, int]
    pad_r: tuple[int, int]

    @property
    def trimmed(self) -> bool:
        """Whether oneDNN reads only the top-left ``src_shape`` part of ``x``."""
        return self.src_shape != self.x_shape


def window(node: Any, x_shape: tuple[int, ...]) -> Window | None:
    """The geometry of ``node``'s pooling over an input of ``x_shape``.

    ``node`` has Chainer's attributes ``kh, kw, sy, sx, ph, pw, cover_all``.
    Returns None when oneDNN cannot express it: a padding as large as the
    window (some windows would lie wholly in the padding).
    """
    ksize = (node.kh, node.kw)
    stride = (node.sy, node.sx)
    pad = (node.ph, node.pw)
    outs = _window.outsize(x_shape[2:], ksize, stride, pad, node.cover_all)
    src_hw = []
    pad_r = []
    for size, out, k, s, p in zip(x_shape[2:], outs, ksize, stride, pad):
        right = (out - 1) * s + k - size - p
        if p >= k or right >= k:
            return None
        src_hw.append(size + min(right, 0))
        pad_r.append(max(right, 0))
    return Window(tuple(x_shape), tuple(x_shape[:2]) + tuple(src_hw),
                  tuple(x_shape[:2]) + tuple(outs), ksize, stride, pad,
                  (pad_r[0], pad_r[1]))


def small(x_shape: tuple[int, ...]) -> bool:
    """Whether an input of ``x_shape`` is too small for oneDNN to beat NumPy under
    ``use_ideep='auto'``."""
    return math.prod(x_shape) < THRESHOLD and config.use_ideep == 'auto'


def forward_pd(w: Window, algorithm: int, prop_kind: int) -> PrimitiveDesc:
    """The forward pooling's primitive descriptor on plain arrays (also the backward's hint).

    Pooling reads each input once, so plain layouts are faster than
    reordering into a blocked one and back.
    """
    f32 = _common.FLOAT32
    return PrimitiveDesc(
        'dnnl_pooling_forward_primitive_desc_create', _primitive.engine(), prop_kind,
        algorithm, MemoryDesc.plain(w.src_shape, f32), MemoryDesc.plain(w.y_shape, f32),
        *_geometry(w), None)


def backward_pd(w: Window, algorithm: int) -> PrimitiveDesc:
    """The backward pooling's primitive descriptor on plain arrays."""
    f32 = _common.FLOAT32
    return PrimitiveDesc(
        'dnnl_pooling_backward_primitive_desc_create', _primitive.engine(), algorithm,
        MemoryDesc.plain(w.src_shape, f32), MemoryDesc.plain(w.y_shape, f32),
        *_geometry(w), forward_pd(w, algorithm, _capi.FORWARD_TRAINING), None)


def _geometry(w: Window) -> tuple[Any, ...]:
    return (_capi.dims(w.stride), _capi.dims(w.ksize), _capi.dims((0, 0)),
            _capi.dims(w.pad_l), _capi.dims(w.pad_r))


def source(x: numpy.ndarray, w: Window) -> numpy.ndarray:
    """The C-contiguous part of ``x`` that oneDNN reads."""
    if w.trimmed:
        x = x[:, :, :w.src_shape[2], :w.src_shape[3]]
    return _common.contiguous(x)


def untrim(gx: numpy.ndarray, w: Window) -> numpy.ndarray:
    """``gx`` of ``src_shape`` widened with zeros to the input's shape."""
    if not w.trimmed:
        return gx
    full = numpy.zeros(w.x_shape, gx.dtype)
    full[:, :, :w.src_shape[2], :w.src_shape[3]] = gx
    return full


_WORKSPACE_DTYPES = (numpy.dtype(numpy.uint8), numpy.dtype(numpy.int32))


def _plain_workspace(w: Window, pd: PrimitiveDesc) -> bool:
    """Whether the workspace is a plain ``y_shape`` array of taps (u8 or s32)."""
    workspace = pd.query_md(_capi.QUERY_WORKSPACE_MD)
    return any(workspace == MemoryDesc.plain(w.y_shape, dtype) for dtype in _WORKSPACE_DTYPES)


def _workspace_dtype(operation: Operation, w: Window) -> numpy.dtype:
    """The dtype of ``operation``'s workspace (checked plain when it was built)."""
    itemsize = operation.internal_nbytes[0] // math.prod(w.y_shape)
    return _WORKSPACE_DTYPES[0] if itemsize == 1 else _WORKSPACE_DTYPES[1]


def _build_forward(w: Window, with_indexes: bool) -> Operation | None:
    prop_kind = _capi.FORWARD_TRAINING if with_indexes else _capi.FORWARD_INFERENCE
    pd = forward_pd(w, _capi.POOLING_MAX, prop_kind)
    internal: list[tuple[int, _primitive.Query]] = []
    if with_indexes:
        if not _plain_workspace(w, pd):
            return None
        internal.append((_capi.ARG_WORKSPACE, _capi.QUERY_WORKSPACE_MD))
    return Operation('max_pooling_2d', pd, _common.FLOAT32,
                     [(_capi.ARG_SRC, w.src_shape, _capi.QUERY_SRC_MD)],
                     [(_capi.ARG_DST, w.y_shape, _capi.QUERY_DST_MD)], internal)


def _indexes(workspace: numpy.ndarray, w: Window) -> numpy.ndarray:
    """The node's ``indexes`` (the generic forward's dtype) from oneDNN's workspace."""
    dtype = numpy.dtype(_window.index_dtype(math.prod(w.ksize)))
    if workspace.dtype.itemsize == dtype.itemsize:
        # Taps fit in the signed type of the same width: the same bytes.
        return workspace.view(dtype)
    return workspace.astype(dtype)


def max_pooling_2d(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``MaxPooling2D.forward`` on oneDNN, or Fallback."""
    x, = inputs
    if not _common.all_float32(x) or small(x.shape):
        return Fallback
    w = window(node, x.shape)
    if w is None:
        return Fallback
    with_indexes = bool(node.return_indices or config.enable_backprop)
    operation = _primitive.cached(('max_pooling_2d', w, with_indexes),
                                  lambda: _build_forward(w, with_indexes))
    if operation is None:
        return Fallback
    y = numpy.empty(w.y_shape, _common.FLOAT32)
    if not with_indexes:
        operation(source(x, w), y)
        node.indexes = None
    else:
        workspace = numpy.empty(w.y_shape, _workspace_dtype(operation, w))
        operation(source(x, w), y, workspace)
        node.indexes = _indexes(workspace, w)
    node._in_shape = x.shape
    node._in_dtype = x.dtype
    _common.mark(node, operation)
    return y,


def _build_backward(w: Window) -> Operation | None:
    pd = backward_pd(w, _capi.POOLING_MAX)
    if not _plain_workspace(w, pd):
        return None
    return Operation('max_pooling_2d_grad', pd, _common.FLOAT32,
                          [(_capi.ARG_DIFF_DST, w.y_shape, _capi.QUERY_DIFF_DST_MD)],
                          [(_capi.ARG_DIFF_SRC, w.src_shape, _capi.QUERY_DIFF_SRC_MD)],
                          [(_capi.ARG_WORKSPACE, _capi.QUERY_WORKSPACE_MD)])


def _as_workspace(indexes: numpy.ndarray, dtype: numpy.dtype) -> numpy.ndarray:
    """``indexes`` as oneDNN's workspace of ``dtype`` (a view when the width matches)."""
    if indexes.dtype.itemsize == dtype.itemsize:
        return _common.contiguous(indexes).view(dtype)
    return indexes.astype(dtype)


def max_pooling_2d_grad(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``MaxPooling2DGrad.forward`` (input ``gy``) on oneDNN, or Fallback."""
    gy, = inputs
    indexes = node.indexes
    if not _common.all_float32(gy) or indexes is None or indexes.shape != gy.shape:
        return Fallback
    w = window(node, node._in_shape)
    if w is None or w.y_shape != gy.shape or small(w.x_shape):
        return Fallback
    operation = _primitive.cached(('max_pooling_2d_grad', w), lambda: _build_backward(w))
    if operation is None:
        return Fallback
    gx = numpy.empty(w.src_shape, _common.FLOAT32)
    workspace = _as_workspace(indexes, _workspace_dtype(operation, w))
    operation(_common.contiguous(gy), gx, workspace)
    _common.mark(node, operation)
    return untrim(gx, w),


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.pooling import max_pooling_2d as nodes

    return [(nodes.MaxPooling2D, max_pooling_2d),
            (nodes.MaxPooling2DGrad, max_pooling_2d_grad)]
