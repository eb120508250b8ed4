"""What catena-cuda's cuDNN kernels share: the frontend, handles, plan choice and caching.

The kernels reach cuDNN through NVIDIA's cuDNN frontend (``import cudnn``,
the ``nvidia-cudnn-frontend`` distribution): a kernel describes its operation
as a frontend graph (:func:`cudnn.pygraph`), and this module turns the graph
into an executable plan once per thread and per everything that defines it,
then runs it on CuPy arrays.

* A **handle** per (GPU, thread), made on first use and bound before every
  run to CuPy's current stream (:func:`current_handle`).
* A **plan** per graph key: validate, lower, query the heuristics (modes A
  and FALLBACK), filter the plans by the configuration
  (:class:`PlanPolicy`: ``cudnn_deterministic``, ``use_cudnn_tensor_core``
  and :func:`catena_cuda.get_max_workspace_size`), then build the plans one
  by one and select the first that builds, or with ``catena.config.autotune``
  run every plan that builds once between two CUDA events and keep the
  fastest (:func:`build`).
* A per-thread **cache** of plans (:class:`PlanCache`, least recently used
  out first), keyed by :func:`plan_key`. A graph that cuDNN declines is
  cached as :class:`Declined`, so that the kernel returns
  :data:`catena.Fallback` at once the next time.
* **Execution** (:func:`execute`) binds raw device pointers by tensor uid and
  takes the workspace from CuPy's memory pool for the call. Raw pointers are
  the frontend's most basic operand form: the graph's own declaration (dims,
  strides, dtype) describes each buffer, and the kernels pass C-contiguous,
  aligned arrays whose layout is the declared one.

Nothing here imports CuPy or the frontend at module import.
"""

from __future__ import annotations

import collections
import threading
import types
from collections.abc import Callable, Hashable, Mapping
from typing import Any, NamedTuple

import numpy

from catena_cuda import _runtime

FRONTEND_HINT = 'pip install nvidia-cudnn-frontend nvidia-cudnn-cu12'

MIN_BACKEND_VERSION = 8900
"""The oldest cuDNN library the kernels use (8.9; cuDNN 9 reports 90000 and up)."""

CACHE_SIZE = 512
"""The most plans (and declines) each thread keeps."""

ALIGNMENT = 256
"""Operand addresses are made multiples of this (fresh CuPy allocations are)."""

DATA_TYPES: dict[str, tuple[str, str]] = {
    'float16': ('HALF', 'FLOAT'),
    'float32': ('FLOAT', 'FLOAT'),
    'float64': ('DOUBLE', 'DOUBLE'),
}
"""NumPy dtype name -> (cuDNN data type of the arrays, cuDNN compute data type).

cuDNN's graph API may offer no DOUBLE engine for an operation; its float64
graphs then decline once (the decline is cached) and run the generic code.
"""

_frontend_lock = threading.Lock()
_frontend_probed = False
_frontend: types.ModuleType | None = None
_frontend_reason: str | None = None
_local = threading.local()


# ---------------------------------------------------------------------------
# The frontend and the library
# ---------------------------------------------------------------------------

def cudnn_available() -> str | None:
    """Why the cuDNN kernels cannot run here, or None when they can.

    Imports the cuDNN frontend and asks it for the cuDNN library's version,
    once per process. It needs no GPU; whether one is visible is
    :func:`catena_cuda._runtime.probe`'s question.

    Returns:
        str or None: The reason (the frontend is missing, the cuDNN library
        cannot be loaded, or it is older than :data:`MIN_BACKEND_VERSION`),
        or None.
    """
    _probe_frontend()
    return _frontend_reason


def backend_version() -> int:
    """The cuDNN library's version number (``cudnn.backend_version()``), or 0 without one."""
    if cudnn_available() is not None:
        return 0
    assert _frontend is not None
    return int(_frontend.backend_version())


def frontend() -> types.ModuleType:
    """Returns the ``cudnn`` module.

    Raises:
        RuntimeError: cuDNN is not usable here; the message says why.
    """
    reason = cudnn_available()
    if reason is not None:
        raise RuntimeError(f'cuDNN is not available: {reason}')
    assert _frontend is not None
    return _frontend


def _probe_frontend() -> None:
    global _frontend_probed, _frontend, _frontend_reason
    if _frontend_probed:
        return
    with _frontend_lock:
        if not _frontend_probed:
            _frontend, _frontend_reason = _load_frontend()
            _frontend_probed = True


def _load_frontend() -> tuple[types.ModuleType | None, str | None]:
    try:
        import cudnn
    except ImportError as error:
        if error.name == 'cudnn':
            return None, f'the cuDNN frontend is not installed ({FRONTEND_HINT})'
        return None, f'the cuDNN frontend could not be imported: {type(error).__name__}: {error}'
    except Exception as error:  # noqa: BLE001 - a broken extension fails in many ways
        return None, f'the cuDNN frontend could not be imported: {type(error).__name__}: {error}'
    try:
        version = int(cudnn.backend_version())
    except Exception as error:  # noqa: BLE001 - RuntimeError when libcudnn is not found
        return None, (f'the cuDNN library could not be loaded ({FRONTEND_HINT}): '
                      f'{type(error).__name__}: {error}')
    if version < MIN_BACKEND_VERSION:
        return None, (f'the cuDNN library is too old: version {version}, catena-cuda needs '
                      f'{MIN_BACKEND_VERSION} or newer')
    return cudnn, None


def usable() -> bool:
    """Whether a cuDNN kernel may run now: cuDNN is available and
    ``catena_cuda.should_use_cudnn('>=auto')`` says yes."""
    import catena_cuda

    return cudnn_available() is None and catena_cuda.should_use_cudnn('>=auto')


# ---------------------------------------------------------------------------
# Data types and layouts
# ---------------------------------------------------------------------------

def data_types(dtype: Any) -> tuple[str, str] | None:
    """The cuDNN data type names ``(io, compute)`` for arrays of ``dtype``, or None.

    float16 arrays are computed in FLOAT, float32 in FLOAT and float64 in
    DOUBLE; other dtypes have no cuDNN kernel here.
    """
    return DATA_TYPES.get(numpy.dtype(dtype).name)


def cudnn_type(cudnn: Any, name: str) -> Any:
    """The ``cudnn.data_type`` member called ``name`` (``'HALF'``, ``'FLOAT'``, ...)."""
    return getattr(cudnn.data_type, name)


def row_major_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The element strides of a C-contiguous array of ``shape``."""
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    return tuple(strides)


def operand(array: Any) -> Any:
    """``array`` as cuDNN reads it: C-contiguous at an aligned address (a copy if needed)."""
    cupy = _runtime.cupy_module()
    if not array.flags.c_contiguous or array.data.ptr % ALIGNMENT:
        copy = cupy.empty(array.shape, array.dtype)
        copy[...] = array
        return copy
    return array


# ---------------------------------------------------------------------------
# Plan choice
# ---------------------------------------------------------------------------

class PlanPolicy(NamedTuple):
    """The configuration that changes which plan runs (so it is part of every key).

    Attributes:
        deterministic: ``catena.config.cudnn_deterministic``: plans with the
            NONDETERMINISTIC numerical note are excluded.
        tensor_core: :func:`catena_cuda.should_use_cudnn_tensor_core` for the
            dtype; when False, plans with the TENSOR_CORE note are excluded.
        autotune: ``catena.config.autotune``: every plan is timed once and
            the fastest is kept.
        workspace_limit: :func:`catena_cuda.get_max_workspace_size`; plans
            needing more workspace are excluded.
    """

    deterministic: bool
    tensor_core: bool
    autotune: bool
    workspace_limit: int


def plan_policy(dtype: Any) -> PlanPolicy:
    """The :class:`PlanPolicy` that the current configuration gives for ``dtype``."""
    import catena_cuda
    from catena.configuration import config

    return PlanPolicy(bool(getattr(config, 'cudnn_deterministic', False)),
                      bool(catena_cuda.should_use_cudnn_tensor_core(dtype)),
                      bool(getattr(config, 'autotune', False)),
                      int(catena_cuda.get_max_workspace_size()))


def plan_key(op: str, geometry: Hashable, policy: PlanPolicy, device_id: int) -> tuple[Any, ...]:
    """The cache key of one plan: the op, its geometry (shapes, strides, dtypes,
    parameters), the GPU and the plan policy."""
    return (op, geometry, device_id, policy)


def apply_policy(graph: Any, cudnn: Any, policy: PlanPolicy) -> None:
    """Excludes the plans that ``policy`` rules out (after ``create_execution_plans``)."""
    notes = []
    if policy.deterministic:
        notes.append(cudnn.numerical_note.NONDETERMINISTIC)
    if not policy.tensor_core:
        notes.append(cudnn.numerical_note.TENSOR_CORE)
    if notes:
        graph.deselect_numeric_notes(notes)
    graph.deselect_workspace_greater_than(policy.workspace_limit)


class Declined(NamedTuple):
    """A graph that cuDNN does not run, with the reason it gave."""

    reason: str


class Plan:
    """A built graph, ready to execute.

    Args:
        graph: The built :class:`cudnn.pygraph`.
        uids: The uid of each named tensor of the graph.
        workspace_size: The bytes of workspace the selected plan needs.
    """

    def __init__(self, graph: Any, uids: Mapping[str, int], workspace_size: int) -> None:
        self.graph = graph
        self.uids = dict(uids)
        self.workspace_size = int(workspace_size)

    def __repr__(self) -> str:
        return f'Plan(tensors={sorted(self.uids)}, workspace_size={self.workspace_size})'


GraphMaker = Callable[[Any, Any], tuple[Any, Mapping[str, Any]]]
"""``make(cudnn, handle) -> (graph, {name: tensor})``: builds an op's frontend graph."""


def declines(cudnn: Any) -> tuple[type[BaseException], ...]:
    """The errors that mean "cuDNN does not do this graph"."""
    return (cudnn.cudnnGraphNotSupportedError, NotImplementedError, RuntimeError, ValueError)


def build(make: GraphMaker, policy: PlanPolicy, handle: Any,
          buffers: Mapping[str, Any] | None = None) -> Plan | Declined:
    """Builds the plan of the graph ``make`` describes.

    The frontend's sequence (validate, lower, heuristics A and FALLBACK, the
    policy's filters, support check), then the plans are built one by one in
    the heuristics' order: the first that builds within the workspace limit
    is selected, or with ``policy.autotune`` each one that builds is run once
    on ``buffers`` and the fastest is selected. A plan that the filters
    excluded fails to build and is skipped.

    Args:
        make: Builds the graph and names its tensors.
        policy: Which plans may run.
        handle: The :class:`cudnn.Handle` the graph is lowered on.
        buffers: The call's arrays by tensor name, for autotuning (the
            caller's outputs are overwritten; the caller runs the plan after).

    Returns:
        The :class:`Plan`, or :class:`Declined` with cuDNN's reason.
    """
    cudnn = frontend()
    try:
        graph, tensors = make(cudnn, handle)
        uids = {name: tensor.uid for name, tensor in tensors.items()}
        graph.validate()
        graph.build_operation_graph()
        graph.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
        apply_policy(graph, cudnn, policy)
        graph.check_support()
        timed = policy.autotune and buffers is not None
        workspace_size = _select(graph, cudnn, policy.workspace_limit,
                                 (uids, buffers, handle) if timed else None)
    except declines(cudnn) as error:
        return Declined(f'{type(error).__name__}: {error}')
    return Plan(graph, uids, workspace_size)


def _select(graph: Any, cudnn: Any, workspace_limit: int,
            autotune: tuple[Mapping[str, int], Any, Any] | None) -> int:
    """Selects a plan of ``graph`` (see :func:`build`); returns its workspace size."""
    best: tuple[float, int, int] | None = None
    for index in range(graph.get_execution_plan_count()):
        try:
            graph.build_plan_at_index(index)
            size = int(graph.get_workspace_size())
        except declines(cudnn):
            continue
        if size > workspace_limit:
            continue
        if autotune is None:
            return size
        elapsed = time_plan(graph, size, *autotune)
        if best is None or elapsed < best[0]:
            best = (elapsed, index, size)
    if best is None:
        raise cudnn.cudnnGraphNotSupportedError(
            f'no plan could be built within the workspace limit of {workspace_limit} bytes '
            '(catena_cuda.set_max_workspace_size) and the configuration '
            '(cudnn_deterministic, use_cudnn_tensor_core)')
    graph.build_plan_at_index(best[1])
    return best[2]


def time_plan(graph: Any, workspace_size: int, uids: Mapping[str, int],
              buffers: Mapping[str, Any], handle: Any) -> float:
    """Runs the selected plan of ``graph`` once; returns its time in milliseconds
    (measured with CUDA events on the current stream)."""
    cupy = _runtime.cupy_module()
    workspace = cupy.empty(workspace_size, numpy.uint8) if workspace_size else None
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    graph.execute(_pack(uids, buffers), _address(workspace), handle=handle)
    stop.record()
    stop.synchronize()
    return float(cupy.cuda.get_elapsed_time(start, stop))


# ---------------------------------------------------------------------------
# Handles, the cache, execution
# ---------------------------------------------------------------------------

def current_handle(device_id: int) -> Any:
    """This thread's cuDNN handle for GPU ``device_id``, bound to CuPy's current stream."""
    cudnn = frontend()
    cupy = _runtime.cupy_module()
    handles = getattr(_local, 'handles', None)
    if handles is None:
        handles = _local.handles = {}
    handle = handles.get(device_id)
    if handle is None:
        with cupy.cuda.Device(device_id):
            handle = handles[device_id] = cudnn.create_handle()
    cudnn.set_stream(handle, cupy.cuda.get_current_stream().ptr)
    return handle


class PlanCache:
    """Plans (and declines) by key, the least recently used dropped beyond ``size``.

    Args:
        size: The most entries kept.
    """

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._entries: collections.OrderedDict[Hashable, Plan | Declined] = (
            collections.OrderedDict())

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def get(self, key: Hashable, make: Callable[[], Plan | Declined]) -> Plan | Declined:
        """The entry of ``key``, made with ``make()`` (and kept) when absent."""
        entries = self._entries
        entry = entries.get(key)
        if entry is not None:
            entries.move_to_end(key)
            return entry
        entry = entries[key] = make()
        if len(entries) > self.size:
            entries.popitem(last=False)
        return entry

    def clear(self) -> None:
        """Forgets every entry."""
        self._entries.clear()


def thread_cache() -> PlanCache:
    """This thread's :class:`PlanCache`."""
    cache = getattr(_local, 'cache', None)
    if cache is None:
        cache = _local.cache = PlanCache()
    return cache


def plan(op: str, geometry: Hashable, dtype: Any, device_id: int, make: GraphMaker,
         buffers: Mapping[str, Any]) -> Plan | None:
    """The cached plan of an op on GPU ``device_id``, built on first use.

    Args:
        op: The op's name (part of the key).
        geometry: Everything else that defines the graph (part of the key).
        dtype: The arrays' dtype (it decides the tensor-core policy).
        device_id: The GPU.
        make: Builds the graph.
        buffers: The call's arrays by tensor name (for autotuning).

    Returns:
        The :class:`Plan`, or None when cuDNN declines the graph.
    """
    policy = plan_policy(dtype)
    key = plan_key(op, geometry, policy, device_id)
    entry = thread_cache().get(
        key, lambda: build(make, policy, current_handle(device_id), buffers))
    return entry if isinstance(entry, Plan) else None


def execute(plan: Plan, buffers: Mapping[str, Any], device_id: int) -> None:
    """Runs ``plan`` on CuPy's current stream.

    Args:
        plan: The plan.
        buffers: Every tensor of the graph by name: CuPy arrays laid out as
            declared, or NumPy arrays for pass-by-value scalars.
        device_id: The GPU the plan was built for.
    """
    cupy = _runtime.cupy_module()
    handle = current_handle(device_id)
    workspace = cupy.empty(plan.workspace_size, numpy.uint8) if plan.workspace_size else None
    plan.graph.execute(_pack(plan.uids, buffers), _address(workspace), handle=handle)


def _pack(uids: Mapping[str, int], buffers: Mapping[str, Any]) -> dict[int, int]:
    return {uids[name]: _address(array) for name, array in buffers.items()}


def _address(array: Any) -> Any:
    """The address of a CuPy array's data, or of a NumPy (host) array's; None stays None."""
    if array is None:
        return None
    if isinstance(array, numpy.ndarray):
        return int(array.ctypes.data)
    return int(array.data.ptr)


__all__ = [
    'ALIGNMENT', 'CACHE_SIZE', 'DATA_TYPES', 'Declined', 'MIN_BACKEND_VERSION', 'Plan',
    'PlanCache', 'PlanPolicy', 'apply_policy', 'backend_version', 'build', 'cudnn_available',
    'cudnn_type', 'current_handle', 'data_types', 'declines', 'execute', 'frontend', 'operand',
    'plan', 'plan_key', 'plan_policy', 'row_major_strides', 'thread_cache', 'time_plan',
    'usable',
]
