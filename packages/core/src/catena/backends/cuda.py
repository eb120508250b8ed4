"""``catena.backends.cuda``: Chainer's ``backends.cuda``, served by catena-cuda.

This module holds no CUDA code. Reading one of its names asks the plugin
registry for the module that the ``catena-cuda`` package provides (the
``catena_backend_modules`` hook) and returns that module's attribute; this
loads the plugins on first access, never on import.

Without catena-cuda, the CPU-safe part of Chainer's surface still works, so
that CPU programs written for Chainer run unchanged: ``available`` and
``cudnn_enabled`` are False, ``get_array_module`` returns NumPy, ``to_cpu``
returns NumPy arrays, ``get_device_from_id(None)`` and
``get_device_from_array`` return :data:`DummyDevice`, and
``check_cuda_available`` raises. Every other name raises an
:class:`AttributeError` (so ``hasattr`` works) that says which package to
install.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any, NoReturn

import numpy

_INSTALL = "pip install 'catena-cuda[cuda12]'"


class DummyDeviceType:
    """The device of arrays that are not on a GPU; a ``with`` context that does nothing.

    Its only instance is :data:`DummyDevice`; its ``id`` is -1.
    """

    id = -1

    def __int__(self) -> int:
        return -1

    def __index__(self) -> int:
        return -1

    def __enter__(self) -> DummyDeviceType:
        return self

    def __exit__(self, *args: Any) -> None:
        pass

    def use(self) -> None:
        """Does nothing (a GPU device would become current)."""

    def synchronize(self) -> None:
        """Does nothing (a GPU device would wait for its work to finish)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DummyDeviceType)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(DummyDeviceType)

    def __repr__(self) -> str:
        return 'catena.backends.cuda.DummyDevice'


DummyDevice = DummyDeviceType()
"""The single :class:`DummyDeviceType`: the "device" of CPU arrays."""


def _plugin() -> types.ModuleType | None:
    from catena.backends import _registry

    return _registry.backend_modules.get('cuda')


def __getattr__(name: str) -> Any:
    if name.startswith('__'):
        # Module protocol probes (__path__, __file__ lookups by tools) must
        # not load plugins.
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    plugin = _plugin()
    if plugin is not None:
        # The plugin's own AttributeError says why (for example "needs CuPy
        # and a GPU: <reason>").
        return getattr(plugin, name)
    if name in _FALLBACKS:
        return _FALLBACKS[name]
    raise AttributeError(f'catena.backends.cuda.{name} needs the catena-cuda package: '
                         f'{_INSTALL}')


def __dir__() -> list[str]:
    names = set(globals()) | set(_FALLBACKS)
    plugin = _plugin()
    if plugin is not None:
        names |= set(dir(plugin))
    return sorted(n for n in names if not n.startswith('_'))


# ---------------------------------------------------------------------------
# The CPU-safe surface used when catena-cuda is not installed
# ---------------------------------------------------------------------------

def _check_cuda_available() -> NoReturn:
    """Raises: CUDA is never available without catena-cuda."""
    raise RuntimeError(f'CUDA is not available: install catena-cuda ({_INSTALL})')


def _get_array_module(*args: Any) -> types.ModuleType:
    """Returns the array module of the arguments (NumPy without a GPU backend)."""
    from catena import backend

    return backend.get_array_module(*args)


def _get_device_from_id(device_id: int | None) -> DummyDeviceType:
    """Returns :data:`DummyDevice` for None; a GPU index needs catena-cuda."""
    if device_id is None:
        return DummyDevice
    _check_cuda_available()


def _get_device_from_array(*arrays: Any) -> DummyDeviceType:
    """Returns :data:`DummyDevice`: without catena-cuda no array is on a GPU."""
    return DummyDevice


def _to_cpu(array: Any, stream: Any = None) -> Any:
    """Returns NumPy arrays for an array, a Variable or a nested list/tuple of them."""
    if stream is not None:
        _check_cuda_available()
    return _map_nested(array, _leaf_to_cpu)


def _map_nested(value: Any, function: Callable[[Any], Any]) -> Any:
    if value is None:
        return None
    if isinstance(value, list):
        return [_map_nested(item, function) for item in value]
    if isinstance(value, tuple):
        return tuple(_map_nested(item, function) for item in value)
    return function(value)


def _leaf_to_cpu(value: Any) -> Any:
    from catena import backend
    from catena.variable import Variable

    if isinstance(value, Variable):
        value = value.array
        if value is None:
            return None
    if type(value) is numpy.ndarray:
        return value
    if isinstance(value, numpy.generic) or numpy.isscalar(value):
        return numpy.asarray(value)
    if not isinstance(value, backend.get_array_types()):
        raise TypeError(
            'to_cpu takes arrays, Variables, scalars, None, or lists or tuples of them; '
            f'got {type(value).__name__}')
    return numpy.asarray(backend.get_device_from_array(value).to_numpy(value))


_FALLBACKS: dict[str, Any] = {
    'available': False,
    'cudnn_enabled': False,
    'check_cuda_available': _check_cuda_available,
    'get_array_module': _get_array_module,
    'get_device_from_id': _get_device_from_id,
    'get_device_from_array': _get_device_from_array,
    'to_cpu': _to_cpu,
}
