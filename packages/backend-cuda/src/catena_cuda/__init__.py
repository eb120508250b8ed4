"""catena's CUDA backend: Chainer's ``backends.cuda`` surface on CuPy.

Once this package is installed, ``catena.backends.cuda`` serves the names
below. The package imports on machines without CuPy or without a GPU: CuPy is
imported on first need, and functions that need a GPU raise a
:class:`RuntimeError` that says why there is none (:func:`check_cuda_available`).

``available`` (CuPy imports and a GPU is visible) and ``cudnn_enabled`` (also
the cuDNN frontend and library load) are computed on first access. ``cupy``,
``ndarray``, ``Device``, ``Event``, ``Stream``, ``memory_pool`` and
``pinned_memory_pool`` are CuPy's objects, served lazily as in Chainer's
module; without a usable CuPy, reading them raises :class:`AttributeError`
with the reason. The function hooks ``CupyMemoryProfileHook`` and
``CUDAProfileHook`` (also served as ``catena.function_hooks.*``) are imported
on first access.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import types
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import numpy

from catena.backends.cuda import DummyDevice, DummyDeviceType
from catena_cuda import _runtime
from catena_cuda.device import GpuDevice

__version__ = '0.1.0'

F = TypeVar('F', bound=Callable[..., Any])


_DEFAULT_WORKSPACE_SIZE = 8 * 1024 * 1024
_max_workspace_size = _DEFAULT_WORKSPACE_SIZE

# CuPy objects that Chainer's module re-exported, resolved on first access.
_CUPY_ALIASES: dict[str, Callable[[types.ModuleType], Any]] = {
    'cupy': lambda cupy: cupy,
    'ndarray': lambda cupy: cupy.ndarray,
    'Device': lambda cupy: cupy.cuda.Device,
    'Event': lambda cupy: cupy.cuda.Event,
    'Stream': lambda cupy: cupy.cuda.Stream,
    'memory_pool': lambda cupy: cupy.get_default_memory_pool(),
    'pinned_memory_pool': lambda cupy: cupy.get_default_pinned_memory_pool(),
}


_FUNCTION_HOOKS = ('CUDAProfileHook', 'CupyMemoryProfileHook')


def __getattr__(name: str) -> Any:
    if name == 'available':
        return _runtime.probe() is None
    if name == 'cudnn_enabled':
        return _cudnn_enabled()
    if name in _FUNCTION_HOOKS:
        from catena_cuda import function_hooks

        return getattr(function_hooks, name)
    if name in _CUPY_ALIASES:
        reason = _runtime.probe()
        if reason is not None:
            raise AttributeError(f'catena_cuda.{name} needs CuPy and a GPU: {reason}')
        return _CUPY_ALIASES[name](_runtime.cupy_module())
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


def __dir__() -> list[str]:
    return sorted(set(globals()) | {'available', 'cudnn_enabled'} | set(_CUPY_ALIASES)
                  | set(_FUNCTION_HOOKS))


# ---------------------------------------------------------------------------
# Availability and devices
# ---------------------------------------------------------------------------

def check_cuda_available() -> None:
    """Raises an error unless CuPy imports and a GPU is visible.

    Raises:
        RuntimeError: The message says what is missing (CuPy, the driver or a
            GPU) and how to install CuPy.
    """
    reason = _runtime.probe()
    if reason is not None:
        raise RuntimeError(f'CUDA is not available: {reason}')


def get_device_from_id(device_id: int | None) -> Any:
    """Returns the :class:`cupy.cuda.Device` of a GPU index.

    Args:
        device_id: The GPU index, or None.

    Returns:
        The :class:`cupy.cuda.Device`, or :data:`DummyDevice` for None. Both
        work as ``with`` contexts that make the device current.
    """
    if device_id is None:
        return DummyDevice
    return _runtime.cupy_module().cuda.Device(int(device_id))


def get_device_from_array(*arrays: Any) -> Any:
    """Returns the :class:`cupy.cuda.Device` of the first CuPy array given.

    Args:
        arrays: Arrays or Variables.

    Returns:
        The device of the first CuPy array (a Variable counts by its array),
        or :data:`DummyDevice` when none is a CuPy array.
    """
    if _runtime.probe() is not None:
        return DummyDevice
    cupy = _runtime.cupy_module()
    for array in arrays:
        array = _unwrap_variable(array)
        if isinstance(array, cupy.ndarray) and array.device is not None:
            return array.device
    return DummyDevice


def get_array_module(*args: Any) -> types.ModuleType:
    """Returns :mod:`cupy` if any argument lives on a GPU, else :mod:`numpy`.

    Same as :func:`catena.backend.get_array_module`.

    Args:
        args: Arrays, Variables or other objects.

    Returns:
        module: The array module for the arguments.
    """
    from catena import backend

    return backend.get_array_module(*args)


# ---------------------------------------------------------------------------
# Transfers
# ---------------------------------------------------------------------------

def to_gpu(array: Any, device: Any = None, stream: Any = None) -> Any:
    """Copies an array, or a (nested) list or tuple of arrays, to a GPU.

    Args:
        array: A NumPy or CuPy array (or an array of another registered
            device), None, or a list or tuple of them.
        device: The target GPU: an index, a :class:`cupy.cuda.Device`, a
            :class:`GpuDevice`, or None for the current GPU.
        stream: Deprecated, as in Chainer: a :class:`cupy.cuda.Stream` made
            current during the copy.

    Returns:
        The array(s) on the GPU; an array already there is returned as is.

    Raises:
        RuntimeError: CUDA is not available here.
        TypeError: ``array`` holds something that is not an array.
    """
    check_cuda_available()
    target = _gpu_device(device)
    context = _stream_context(stream, 'to_gpu')

    def send(leaf: Any) -> Any:
        if not _is_array_like(leaf):
            raise TypeError('to_gpu takes arrays (or lists or tuples of them); '
                            f'got {type(leaf).__name__}. For a Variable or Link, '
                            'call its to_device(...) instead.')
        return target.send_array(leaf)

    with context:
        return _map_nested(array, send)


def to_cpu(array: Any, stream: Any = None) -> Any:
    """Copies an array, or a (nested) list or tuple of arrays, to the host.

    Args:
        array: An array of any registered device, a Variable (its array is
            copied), a NumPy or Python scalar, None, or a list or tuple of them.
        stream: Deprecated, as in Chainer: the CUDA stream of the copy.

    Returns:
        NumPy arrays; NumPy arrays are returned as they are.

    Raises:
        TypeError: ``array`` holds something that is not an array.
    """
    context = _stream_context(stream, 'to_cpu')
    with context:
        return _map_nested(array, _leaf_to_cpu)


def copy(array: Any, out: Any = None, out_device: Any = None, stream: Any = None) -> Any:
    """Copies a CuPy array, possibly to another GPU.

    Args:
        array: The :class:`cupy.ndarray` to copy.
        out: The array to copy into (any GPU), or None to allocate one.
        out_device: Where to allocate ``out`` when it is None: a GPU index,
            a :class:`cupy.cuda.Device` or a :class:`GpuDevice`; by default
            the GPU of ``array``.
        stream: Deprecated, as in Chainer: a :class:`cupy.cuda.Stream` made
            current during the copy.

    Returns:
        cupy.ndarray: ``out``, holding a copy of ``array``.
    """
    check_cuda_available()
    cupy = _runtime.cupy_module()
    if not isinstance(array, cupy.ndarray):
        raise TypeError(f'copy takes a cupy.ndarray; got {type(array).__name__}. '
                        'Use to_gpu to copy a NumPy array to a GPU.')
    if out is None:
        target = array.device.id if out_device is None else _gpu_device(out_device).device_id
        with cupy.cuda.Device(target):
            out = cupy.empty_like(array)
    with out.device, _stream_context(stream, 'copy'):
        # ndarray.copy() lands on the current device (out's), across GPUs too.
        source = array if array.device.id == out.device.id else array.copy()
        cupy.copyto(out, source)
    return out


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------

_memo_caches: list[dict[Any, Any]] = []
_memo_lock = threading.Lock()


def memoize(for_each_device: bool = False) -> Callable[[F], F]:
    """Makes a function remember its result for each argument (and device).

    Args:
        for_each_device: Keep one result per current GPU, for results such
            as compiled kernels that belong to one device.

    Returns:
        A decorator. The decorated function's arguments must be hashable.
    """
    def decorator(function: F) -> F:
        cache: dict[Any, Any] = {}
        with _memo_lock:
            _memo_caches.append(cache)

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key: Any = (args, tuple(sorted(kwargs.items())))
            if for_each_device:
                key = (_current_device_id(), key)
            try:
                return cache[key]
            except KeyError:
                pass
            result = cache[key] = function(*args, **kwargs)
            return result

        return wrapper  # type: ignore[return-value]

    return decorator


def clear_memo() -> None:
    """Forgets every result remembered by functions decorated with :func:`memoize`."""
    with _memo_lock:
        for cache in _memo_caches:
            cache.clear()


@memoize(for_each_device=True)
def elementwise(in_params: str, out_params: str, operation: str, name: str,
                **kwargs: Any) -> Any:
    """Creates (once per GPU and arguments) a :class:`cupy.ElementwiseKernel`.

    Args:
        in_params: Input parameters, as in CuPy (``'T x, T y'``).
        out_params: Output parameters (``'T z'``).
        operation: The CUDA statement for one element.
        name: The kernel name.
        kwargs: Other arguments of :class:`cupy.ElementwiseKernel`.

    Returns:
        cupy.ElementwiseKernel: The kernel.
    """
    check_cuda_available()
    return _runtime.cupy_module().ElementwiseKernel(
        in_params, out_params, operation, name, **kwargs)


@memoize(for_each_device=True)
def reduce(in_params: str, out_params: str, map_expr: str, reduce_expr: str,
           post_map_expr: str, identity: Any, name: str, **kwargs: Any) -> Any:
    """Creates (once per GPU and arguments) a :class:`cupy.ReductionKernel`.

    Args:
        in_params: Input parameters.
        out_params: Output parameters.
        map_expr: The mapping expression for each input element.
        reduce_expr: The expression combining two mapped values ``a`` and ``b``.
        post_map_expr: The expression applied to the reduced value ``a``.
        identity: The identity of the reduction (a string or None).
        name: The kernel name.
        kwargs: Other arguments of :class:`cupy.ReductionKernel`.

    Returns:
        cupy.ReductionKernel: The kernel.
    """
    check_cuda_available()
    return _runtime.cupy_module().ReductionKernel(
        in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name,
        **kwargs)


@memoize(for_each_device=True)
def raw(code: str, name: str, *args: Any, **kwargs: Any) -> Any:
    """Creates (once per GPU and arguments) a :class:`cupy.RawKernel`.

    Args:
        code: The CUDA source.
        name: The name of the ``__global__`` function to call.
        args: Other positional arguments of :class:`cupy.RawKernel`.
        kwargs: Other keyword arguments of :class:`cupy.RawKernel`.

    Returns:
        cupy.RawKernel: The kernel.
    """
    check_cuda_available()
    return _runtime.cupy_module().RawKernel(code, name, *args, **kwargs)


def fuse(*args: Any, **kwargs: Any) -> Any:
    """Fuses a function into one CUDA kernel with :func:`cupy.fuse`.

    Used as ``@fuse`` or ``@fuse(kernel_name=...)``. Without CUDA the function
    is returned unchanged, so that it still runs on NumPy arrays.

    Returns:
        The fused function, or a decorator when called with options only.
    """
    if _runtime.probe() is None:
        return _runtime.cupy_module().fuse(*args, **kwargs)
    if len(args) == 1 and not kwargs and callable(args[0]):
        return args[0]
    return lambda function: function


# ---------------------------------------------------------------------------
# cuDNN
# ---------------------------------------------------------------------------

def set_max_workspace_size(size: int) -> None:
    """Sets the largest workspace, in bytes, that cuDNN kernels may allocate.

    Args:
        size: The size in bytes (Chainer's default is 8 MiB).
    """
    global _max_workspace_size
    if size < 0:
        raise ValueError(f'the workspace size must be >= 0, got {size}')
    _max_workspace_size = int(size)


def get_max_workspace_size() -> int:
    """Returns the largest workspace, in bytes, that cuDNN kernels may allocate."""
    return _max_workspace_size


def should_use_cudnn(level: str, lowest_version: int = 0) -> bool:
    """Whether cuDNN should be used, from ``catena.config.use_cudnn``.

    Args:
        level: ``'==always'`` (only when ``use_cudnn`` is ``'always'``) or
            ``'>=auto'`` (when it is ``'always'`` or ``'auto'``).
        lowest_version: The lowest cuDNN version that supports the operation.

    Returns:
        bool: Whether the level allows cuDNN, cuDNN is usable here
        (``cudnn_enabled``) and its version is at least ``lowest_version``.
    """
    from catena.configuration import config

    allowed = _level_allows(level, config.use_cudnn, 'use_cudnn')
    return allowed and _cudnn_enabled() and lowest_version <= _cudnn_version()


def should_use_cudnn_tensor_core(dtype: Any) -> bool:
    """Whether cuDNN should use Tensor Cores, from ``catena.config.use_cudnn_tensor_core``.

    Args:
        dtype: The data type of the computation.

    Returns:
        bool: True for ``'always'``; for ``'auto'``, True when cuDNN is
        enabled, ``dtype`` is float16 and the GPU has compute capability 7.0
        or higher.
    """
    from catena.configuration import config

    mode = config.use_cudnn_tensor_core
    if mode == 'always':
        return True
    if mode == 'never':
        return False
    if mode != 'auto':
        raise ValueError("catena.config.use_cudnn_tensor_core must be 'always', 'auto' or "
                         f"'never', got {mode!r}")
    if not _cudnn_enabled() or numpy.dtype(dtype) != numpy.float16:
        return False
    cupy = _runtime.cupy_module()
    return int(cupy.cuda.Device().compute_capability) >= 70


def _cudnn_enabled() -> bool:
    if _runtime.probe() is not None:
        return False
    from catena_cuda.kernels import _cudnn

    return _cudnn.cudnn_available() is None


def _cudnn_version() -> int:
    from catena_cuda.kernels import _cudnn

    return _cudnn.backend_version()


def _level_allows(level: str, value: str, key: str) -> bool:
    if level not in ('==always', '>=auto'):
        raise ValueError(f"level must be '==always' or '>=auto', got {level!r}")
    if value not in ('always', 'auto', 'never'):
        raise ValueError(f"catena.config.{key} must be 'always', 'auto' or 'never', "
                         f'got {value!r}')
    if level == '==always':
        return value == 'always'
    return value != 'never'


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def _gpu_device(device: Any) -> GpuDevice:
    if isinstance(device, GpuDevice):
        return device
    if device is None:
        return GpuDevice(_runtime.cupy_module().cuda.runtime.getDevice())
    return GpuDevice(device)


def _current_device_id() -> int:
    if _runtime.probe() is not None:
        return -1
    return int(_runtime.cupy_module().cuda.runtime.getDevice())


def _stream_context(stream: Any, function: str) -> Any:
    if stream is None:
        return contextlib.nullcontext()
    warnings.warn(f'the stream argument of {function} is deprecated, as in Chainer; '
                  'make the stream current with "with stream:" instead',
                  DeprecationWarning, stacklevel=3)
    return stream


def _map_nested(value: Any, function: Callable[[Any], Any]) -> Any:
    if value is None:
        return None
    if isinstance(value, list):
        return [_map_nested(item, function) for item in value]
    if isinstance(value, tuple):
        return tuple(_map_nested(item, function) for item in value)
    return function(value)


def _unwrap_variable(value: Any) -> Any:
    from catena.variable import Variable

    return value.array if isinstance(value, Variable) else value


def _is_array_like(value: Any) -> bool:
    from catena import backend

    return isinstance(value, (numpy.ndarray, numpy.generic) + backend.get_array_types())


def _leaf_to_cpu(value: Any) -> Any:
    value = _unwrap_variable(value)
    if value is None:
        return None
    if type(value) is numpy.ndarray:
        return value
    if isinstance(value, numpy.generic) or numpy.isscalar(value):
        return numpy.asarray(value)
    from catena import backend

    if not isinstance(value, backend.get_array_types()):
        raise TypeError(f'to_cpu takes arrays (or lists or tuples of them); got '
                        f'{type(value).__name__}')
    return numpy.asarray(backend.get_device_from_array(value).to_numpy(value))


__all__ = [
    'DummyDevice', 'DummyDeviceType', 'GpuDevice', 'check_cuda_available', 'clear_memo',
    'copy', 'elementwise', 'fuse', 'get_array_module',
    'get_device_from_array', 'get_device_from_id', 'get_max_workspace_size', 'memoize',
    'raw', 'reduce', 'set_max_workspace_size', 'should_use_cudnn',
    'should_use_cudnn_tensor_core', 'to_cpu', 'to_gpu',
]
