"""``catena.backends.cuda`` on a machine without catena-cuda: Chainer's no-CuPy surface.

Chainer's ``backends.cuda`` imports without CuPy and then answers as a
machine without a GPU: ``available`` is False, ``cupy`` is a placeholder (so
``xp is cuda.cupy`` is simply False), ``ndarray`` and ``Device`` are classes
that no object is an instance of, host-side helpers (``to_cpu``,
``get_array_module``, ``memoize``, ``fuse``, the cuDNN workspace size) work,
and everything that needs a GPU raises :class:`RuntimeError`. This module is
that surface; :mod:`catena.backends.cuda` serves it when the plugin is absent.
"""

from __future__ import annotations

import functools
import types
import warnings
from collections.abc import Callable
from typing import Any, NoReturn

import numpy

from catena._install import install_hint
from catena.backends import _absent, _cpu
from catena.backends.cuda import DummyDevice, DummyDeviceType

INSTALL = install_hint('catena-cuda', 'cuda12')


def missing_message() -> str:
    """Says why CUDA is unavailable: catena-cuda is missing, or the plugin's reason."""
    from catena.backends import _registry

    plugin = _registry.backend_modules.get('cuda')
    if plugin is not None:
        try:
            plugin.check_cuda_available()
        except RuntimeError as error:
            return str(error)
    return f'CUDA is not available: install catena-cuda ({INSTALL})'


class _CupyPlaceholder:
    """What ``catena.backends.cuda.cupy`` is without CuPy: an object, never a module.

    ``xp is cuda.cupy`` is False for every array module; reading an attribute
    raises an :class:`AttributeError` that says CuPy is missing.
    """

    def __getattr__(self, name: str) -> NoReturn:
        if name.startswith('__'):
            raise AttributeError(name)
        raise AttributeError(f'catena.backends.cuda.cupy.{name}: CuPy cannot be used here. '
                             f'{missing_message()}')

    def __repr__(self) -> str:
        return '<catena.backends.cuda.cupy placeholder: CuPy is not available>'


cupy = _CupyPlaceholder()


class ndarray:  # noqa: N801 - Chainer's name for cupy.ndarray
    """Stands in for :class:`cupy.ndarray`: no object is an instance of it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(missing_message())


class Device:
    """Stands in for :class:`cupy.cuda.Device`: it cannot be made without CUDA."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(missing_message())


GpuDevice = _absent.GpuDevice


def check_cuda_available() -> NoReturn:
    """Raises :class:`RuntimeError`: CUDA needs catena-cuda."""
    raise RuntimeError(missing_message())


def get_device_from_id(device_id: int | None) -> DummyDeviceType:
    """Returns :data:`DummyDevice` for None; a GPU index raises :class:`RuntimeError`."""
    if device_id is None:
        return DummyDevice
    check_cuda_available()


def get_device_from_array(*arrays: Any) -> DummyDeviceType:
    """Returns :data:`DummyDevice`: without CuPy no array is on a GPU."""
    return DummyDevice


def get_device(*args: Any) -> DummyDeviceType:
    """Deprecated: use :func:`get_device_from_id` or :func:`get_device_from_array`.

    Returns :data:`DummyDevice` for arrays and other objects; an integer
    (a GPU index) raises :class:`RuntimeError`.
    """
    warnings.warn('get_device is deprecated. Please use get_device_from_id or '
                  'get_device_from_array instead.', DeprecationWarning, stacklevel=2)
    for arg in args:
        if isinstance(arg, (int, numpy.integer)) and not isinstance(arg, bool):
            check_cuda_available()
    return DummyDevice


def to_gpu(array: Any, device: Any = None, stream: Any = None) -> NoReturn:
    """Raises :class:`RuntimeError`: copying to a GPU needs catena-cuda."""
    check_cuda_available()


def copy(array: Any, out: Any = None, out_device: Any = None, stream: Any = None) -> NoReturn:
    """Raises :class:`RuntimeError`: copying GPU arrays needs catena-cuda."""
    check_cuda_available()


def to_cpu(array: Any, stream: Any = None) -> Any:
    """Returns NumPy arrays for an array or a (nested) list or tuple of arrays.

    Args:
        array: An array of a registered device, a NumPy or Python scalar,
            None, or a list or tuple of them. NumPy arrays are returned as
            they are.
        stream: A CUDA stream; without catena-cuda it must be None.

    Raises:
        TypeError: ``array`` holds something that is not an array (a
            :class:`~catena.Variable` included: pass ``variable.array``).
    """
    if stream is not None:
        check_cuda_available()
    return _map_nested(array, _cpu._to_cpu)


def _map_nested(value: Any, function: Callable[[Any], Any]) -> Any:
    if isinstance(value, list):
        return [_map_nested(item, function) for item in value]
    if isinstance(value, tuple):
        return tuple(_map_nested(item, function) for item in value)
    return function(value)


def get_array_module(*args: Any) -> types.ModuleType:
    """Returns the array module of the arguments (NumPy without a GPU backend)."""
    from catena import backend

    return backend.get_array_module(*args)


def memoize(for_each_device: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Returns a decorator that leaves the function as it is (nothing to memoize per GPU).

    Args:
        for_each_device: With CuPy, whether results are kept per device.
    """
    def decorator(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return function(*args, **kwargs)
        return wrapper
    return decorator


def clear_memo() -> None:
    """Does nothing: without CuPy, :func:`memoize` keeps no results."""


def fuse(*args: Any, **kwargs: Any) -> Any:
    """Returns the function unchanged (``cupy.fuse`` needs CuPy).

    Works both as ``@fuse`` and as ``@fuse(kernel_name=...)``.
    """
    if len(args) == 1 and not kwargs and callable(args[0]):
        return args[0]
    return lambda function: function


def elementwise(in_params: str, out_params: str, operation: str, name: str,
                **kwargs: Any) -> NoReturn:
    """Raises :class:`RuntimeError`: CUDA kernels need catena-cuda."""
    check_cuda_available()


def reduce(in_params: str, out_params: str, map_expr: str, reduce_expr: str,
           post_map_expr: str, identity: Any, name: str, **kwargs: Any) -> NoReturn:
    """Raises :class:`RuntimeError`: CUDA kernels need catena-cuda."""
    check_cuda_available()


def raw(code: str, name: str, *args: Any, **kwargs: Any) -> NoReturn:
    """Raises :class:`RuntimeError`: CUDA kernels need catena-cuda."""
    check_cuda_available()


_max_workspace_size = 8 * 1024 * 1024


def get_max_workspace_size() -> int:
    """Returns the cuDNN workspace size limit in bytes (kept even without CUDA)."""
    return _max_workspace_size


def set_max_workspace_size(size: int) -> None:
    """Sets the cuDNN workspace size limit in bytes (kept even without CUDA)."""
    global _max_workspace_size
    _max_workspace_size = size


_CUDNN_LEVELS = ('==always', '>=auto')


def should_use_cudnn(level: str, lowest_version: int = 0) -> bool:
    """Returns False (there is no cuDNN) after checking ``level``."""
    if level not in _CUDNN_LEVELS:
        raise ValueError(f"level must be '==always' or '>=auto', got {level!r}")
    return False


def should_use_cudnn_tensor_core(dtype: Any) -> bool:
    """Returns False: there are no Tensor Cores without CUDA."""
    return False


def get_cudnn_dropout_states() -> NoReturn:
    """Raises :class:`RuntimeError`: cuDNN dropout needs catena-cuda."""
    check_cuda_available()


SURFACE: dict[str, Any] = {
    'available': False,
    'cudnn_enabled': False,
    'cupy': cupy,
    'ndarray': ndarray,
    'Device': Device,
    'GpuDevice': GpuDevice,
    'check_cuda_available': check_cuda_available,
    'get_device_from_id': get_device_from_id,
    'get_device_from_array': get_device_from_array,
    'get_device': get_device,
    'to_gpu': to_gpu,
    'to_cpu': to_cpu,
    'copy': copy,
    'get_array_module': get_array_module,
    'memoize': memoize,
    'clear_memo': clear_memo,
    'fuse': fuse,
    'elementwise': elementwise,
    'reduce': reduce,
    'raw': raw,
    'get_max_workspace_size': get_max_workspace_size,
    'set_max_workspace_size': set_max_workspace_size,
    'should_use_cudnn': should_use_cudnn,
    'should_use_cudnn_tensor_core': should_use_cudnn_tensor_core,
    'get_cudnn_dropout_states': get_cudnn_dropout_states,
}
"""Every name :mod:`catena.backends.cuda` serves without catena-cuda."""

PLACEHOLDERS = frozenset({'cupy', 'ndarray', 'Device'})
"""Names served even with catena-cuda installed, when CuPy or the GPU is unusable."""
