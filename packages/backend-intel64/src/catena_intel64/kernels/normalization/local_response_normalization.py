"""oneDNN kernels of ``local_response_normalization``: the forward and its gradient.

Chainer sums the squares over the ``n // 2`` channels on each side, a window
of ``2 * (n // 2) + 1`` channels (``n + 1`` for an even ``n``), and scales
the sum by ``alpha``; oneDNN's across-channels LRN scales it by
``alpha / local_size``. The kernels pass the odd window size and
``alpha * local_size``. An input of other than 4 axes is seen as
``(n, c, rest, 1)``: the channels are what counts.

The generic node keeps ``unit`` and ``scale`` for its gradient; oneDNN keeps
a workspace instead. The forward kernel stores :class:`Statistics` views as
``unit`` and ``scale``: they carry the workspace to the gradient kernel, and
compute the generic arrays from the retained input only if generic code reads
them (a gradient kernel that declines, or the double backward, which reads
``unit.dtype``).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy

from catena.backends import Fallback
from catena.configuration import config
from catena.functions.normalization import local_response_normalization as lrn
from catena_intel64 import _capi, _primitive
from catena_intel64._primitive import MemoryDesc, Operation, PrimitiveDesc
from catena_intel64.kernels import _common

THRESHOLD = 16384
"""Under ``use_ideep='auto'``, LRN runs on oneDNN from this many elements on, and only
in the nChw16c layout (in nhwc the reorders make its gradient slower than NumPy's)."""


class Parameters(NamedTuple):
    """Everything that defines one LRN's primitives, in oneDNN's terms."""

    shape: tuple[int, ...]
    local_size: int
    alpha: float
    beta: float
    k: float


def parameters(node: Any, shape: tuple[int, ...]) -> Parameters:
    """oneDNN's LRN parameters for ``node`` (Chainer's ``n, k, alpha, beta``) on ``shape``."""
    return _parameters(shape, node.n, node.k, node.alpha, node.beta)


def _parameters(shape: tuple[int, ...], n: int, k: float, alpha: float,
                beta: float) -> Parameters:
    if len(shape) != 4:
        shape = shape[:2] + (math.prod(shape[2:]), 1)
    local_size = 2 * (n // 2) + 1
    return Parameters(shape, local_size, float(alpha) * local_size, float(beta), float(k))


_LAYOUTS = (_capi.FORMAT_NCHW16C, _capi.FORMAT_NHWC, _capi.FORMAT_NCHW)
"""The layouts tried, fastest first. oneDNN 3.2's optimized LRN takes nChw16c for a
window of 5 only, and nhwc for any; its nchw backward is the reference code,
tens of times slower than NumPy. Operation reorders the plain arrays into the
chosen layout and back."""

_LAYOUT_NAMES = {_capi.FORMAT_NCHW16C: 'nChw16c', _capi.FORMAT_NHWC: 'nhwc',
                 _capi.FORMAT_NCHW: 'nchw'}


def _desc(shape: tuple[int, ...], layout: int) -> MemoryDesc:
    return MemoryDesc.tagged(shape, _common.FLOAT32, layout)


def _forward_pd(p: Parameters, layout: int) -> PrimitiveDesc:
    return PrimitiveDesc(
        'dnnl_lrn_forward_primitive_desc_create', _primitive.engine(), _capi.FORWARD_TRAINING,
        _capi.LRN_ACROSS_CHANNELS, _desc(p.shape, layout), _desc(p.shape, layout),
        p.local_size, p.alpha, p.beta, p.k, None)


def _backward_pd(p: Parameters, layout: int) -> PrimitiveDesc:
    desc = _desc(p.shape, layout)
    return PrimitiveDesc(
        'dnnl_lrn_backward_primitive_desc_create', _primitive.engine(),
        _capi.LRN_ACROSS_CHANNELS, desc, desc, desc, p.local_size, p.alpha, p.beta, p.k,
        _forward_pd(p, layout), None)


_chosen: dict[Parameters, int | None] = {}


def _implementations(p: Parameters, layout: int) -> tuple[str, str] | None:
    """oneDNN's names of its forward and backward implementations in ``layout``, or None
    if it has none."""
    try:
        return _forward_pd(p, layout).implementation, _backward_pd(p, layout).implementation
    except _capi.DnnlError as error:
        if error.status != _capi.UNIMPLEMENTED:
            raise
        return None


def _optimized(names: tuple[str, str] | None) -> bool:
    return names is not None and not any(name.startswith('ref') for name in names)


def _layout(p: Parameters) -> int | None:
    """The first layout with optimized forward and backward code, or None if none has.

    A window of one channel is left to NumPy: oneDNN 3.2 crashes creating its
    nhwc backward primitive.
    """
    if p not in _chosen:
        chosen = None
        for layout in _LAYOUTS if p.local_size > 1 else ():
            if _optimized(_implementations(p, layout)):
                chosen = layout
                break
        _chosen[p] = chosen
    return _chosen[p]


def kernel_layout(shape: tuple[int, ...], n: int = 5, k: float = 2, alpha: float = 1e-4,
                  beta: float = .75) -> str | None:
    """The layout the kernels run a float32 LRN in on this CPU, or None if they decline it.

    The kernels decline, whatever ``use_ideep`` says, where oneDNN has only
    its reference code for the forward or the gradient in every layout (which
    layouts have optimized code depends on the CPU's instruction sets), and a
    window of one channel. Under ``use_ideep='auto'`` they run only in
    nChw16c, and from :data:`THRESHOLD` elements on.

    Args:
        shape: The input's shape.
        n, k, alpha, beta: Chainer's parameters of
            :func:`catena.functions.local_response_normalization`.

    Returns:
        ``'nChw16c'``, ``'nhwc'``, ``'nchw'`` or None.
    """
    chosen = _layout(_parameters(shape, n, k, alpha, beta))
    return None if chosen is None else _LAYOUT_NAMES[chosen]


def implementations(shape: tuple[int, ...], n: int = 5, k: float = 2, alpha: float = 1e-4,
                    beta: float = .75) -> dict[str, tuple[str, str] | None]:
    """What oneDNN offers on this CPU for a float32 LRN, by layout: why :func:`kernel_layout`
    chose as it did.

    Args:
        shape: The input's shape.
        n, k, alpha, beta: Chainer's parameters of
            :func:`catena.functions.local_response_normalization`.

    Returns:
        For each layout tried, fastest first, oneDNN's names of its forward
        and backward implementations (such as ``('jit:avx2', 'ref:any')``; a
        name starting with ``'ref'`` is its reference code, which the kernels
        decline), or None where it has none.

    Raises:
        ValueError: A window of one channel (``n`` of 0 or 1), which oneDNN
            3.2 crashes on.
    """
    p = _parameters(shape, n, k, alpha, beta)
    if p.local_size == 1:
        raise ValueError('oneDNN is not asked about a window of one channel')
    return {_LAYOUT_NAMES[layout]: _implementations(p, layout) for layout in _LAYOUTS}


def _declined(p: Parameters) -> bool:
    """Whether to leave ``p`` to NumPy: nothing but oneDNN's reference code for it, or,
    under ``use_ideep='auto'``, too small or not in the nChw16c layout."""
    layout = _layout(p)
    if layout is None:
        return True
    return bool(config.use_ideep == 'auto'
                and (math.prod(p.shape) < THRESHOLD or layout != _capi.FORMAT_NCHW16C))


def _internal(pd: PrimitiveDesc) -> list[tuple[int, _primitive.Query]]:
    """The workspace argument, if the implementation oneDNN chose has one."""
    if pd.query_md(_capi.QUERY_WORKSPACE_MD).nbytes == 0:
        return []
    return [(_capi.ARG_WORKSPACE, _capi.QUERY_WORKSPACE_MD)]


def _build_forward(p: Parameters) -> Operation | None:
    layout = _layout(p)
    if layout is None:
        return None
    pd = _forward_pd(p, layout)
    return Operation('local_response_normalization', pd, _common.FLOAT32,
                     [(_capi.ARG_SRC, p.shape, _capi.QUERY_SRC_MD)],
                     [(_capi.ARG_DST, p.shape, _capi.QUERY_DST_MD)], _internal(pd))


def _build_backward(p: Parameters) -> Operation | None:
    layout = _layout(p)
    if layout is None:
        return None
    pd = _backward_pd(p, layout)
    return Operation('local_response_normalization_grad', pd, _common.FLOAT32,
                     [(_capi.ARG_SRC, p.shape, _capi.QUERY_SRC_MD),
                      (_capi.ARG_DIFF_DST, p.shape, _capi.QUERY_DIFF_DST_MD)],
                     [(_capi.ARG_DIFF_SRC, p.shape, _capi.QUERY_DIFF_SRC_MD)], _internal(pd))


class Statistics:
    """What a forward on oneDNN leaves for the gradient: the input and the workspace.

    Args:
        x: The forward's input (the node retains it anyway).
        node: The forward node (for ``n, k, alpha, beta``).
        params: The oneDNN parameters the forward ran with.
        workspace: The forward's workspace, or None if it has none.
    """

    def __init__(self, x: numpy.ndarray, node: Any, params: Parameters,
                 workspace: numpy.ndarray | None) -> None:
        self.x = x
        self.n, self.k, self.alpha, self.beta = node.n, node.k, node.alpha, node.beta
        self.params = params
        self.workspace = workspace
        self._arrays: tuple[numpy.ndarray, numpy.ndarray] | None = None

    def arrays(self) -> tuple[numpy.ndarray, numpy.ndarray]:
        """The generic forward's ``(unit, scale)``, computed on first use."""
        if self._arrays is None:
            dtype = _common.FLOAT32
            unit = lrn._window_sum(numpy.square(self.x), self.n // 2)
            unit *= dtype.type(self.alpha)
            unit += dtype.type(self.k)
            self._arrays = unit, numpy.power(unit, dtype.type(-self.beta))
        return self._arrays


class Deferred:
    """``unit`` or ``scale`` of a forward that ran on oneDNN, computed when read as an array.

    It has the array's ``dtype`` and ``shape`` and converts with
    ``numpy.asarray`` (``__array__``), which is all the generic gradient
    does with it.
    """

    __slots__ = ('statistics', '_index')

    dtype = _common.FLOAT32

    def __init__(self, statistics: Statistics, index: int) -> None:
        self.statistics = statistics
        self._index = index

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.statistics.x.shape)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> numpy.ndarray:
        array = self.statistics.arrays()[self._index]
        if dtype is not None and numpy.dtype(dtype) != array.dtype:
            return array.astype(dtype)
        return array.copy() if copy else array


def local_response_normalization(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``LocalResponseNormalization.forward`` on oneDNN, or Fallback."""
    x, = inputs
    if not _common.all_float32(x):
        return Fallback
    p = parameters(node, x.shape)
    if _declined(p):
        return Fallback
    operation = _primitive.cached(('local_response_normalization', p),
                                  lambda: _build_forward(p))
    if operation is None:
        return Fallback
    x = _common.contiguous(x)
    y = numpy.empty(x.shape, _common.FLOAT32)
    workspace = None
    if operation.internal_nbytes:
        workspace = numpy.empty(operation.internal_nbytes[0], numpy.uint8)
        operation(x, y, workspace)
    else:
        operation(x, y)
    node.retain_inputs((0,))
    node.retain_outputs((0,))
    statistics = Statistics(x, node, p, workspace)
    node.unit, node.scale = Deferred(statistics, 0), Deferred(statistics, 1)
    _common.mark(node, operation)
    return y,


def _workspace(node: Any, x: numpy.ndarray, p: Parameters, nbytes: int) -> numpy.ndarray:
    """The forward's workspace for ``x``: kept by a oneDNN forward, or made again."""
    unit = node.unit
    if (isinstance(unit, Deferred) and unit.statistics.params == p
            and unit.statistics.workspace is not None):
        return unit.statistics.workspace
    # The forward ran the generic code (or with other parameters): rerun it on oneDNN.
    forward = _primitive.cached(('local_response_normalization', p), lambda: _build_forward(p))
    assert forward is not None and forward.internal_nbytes == [nbytes]
    workspace = numpy.empty(nbytes, numpy.uint8)
    forward(x, numpy.empty(x.shape, _common.FLOAT32), workspace)
    return workspace


def local_response_normalization_grad(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``LocalResponseNormalizationGrad.forward`` (inputs ``x, y, gy``) on oneDNN, or Fallback."""
    x, y, gy = inputs
    if not _common.all_float32(x, y, gy) or x.shape != gy.shape:
        return Fallback
    p = parameters(node, x.shape)
    if _declined(p):
        return Fallback
    operation = _primitive.cached(('local_response_normalization_grad', p),
                                  lambda: _build_backward(p))
    if operation is None:
        return Fallback
    x = _common.contiguous(x)
    gx = numpy.empty(x.shape, _common.FLOAT32)
    if operation.internal_nbytes:
        operation(x, _common.contiguous(gy), gx,
                  _workspace(node, x, p, operation.internal_nbytes[0]))
    else:
        operation(x, _common.contiguous(gy), gx)
    node.retain_inputs((0, 1, 2))
    _common.mark(node, operation)
    return gx,


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    return [(lrn.LocalResponseNormalization, local_response_normalization),
            (lrn.LocalResponseNormalizationGrad, local_response_normalization_grad)]
