"""``catena.backends.cuda``: Chainer's ``backends.cuda``, served by catena-cuda.

This module holds no CUDA code. Reading one of its names asks the plugin
registry for the module that the ``catena-cuda`` package provides (the
``catena_backend_modules`` hook) and returns that module's attribute; this
loads the plugins on first access, never on import.

Without catena-cuda it answers as Chainer's module does on a machine without
CuPy (see :mod:`catena.backends._cuda_fallback`): ``available`` and
``cudnn_enabled`` are False; ``cupy`` is a placeholder object, so that
``xp is cuda.cupy`` is simply False; ``ndarray``, ``Device`` and
``GpuDevice`` are classes that nothing is an instance of; ``to_cpu``,
``get_array_module``, ``get_device_from_array``, ``get_device_from_id(None)``,
``memoize`` and ``fuse`` work; and ``to_gpu``, ``copy``, ``elementwise``,
``reduce``, ``raw``, ``get_device_from_id(n)`` and ``check_cuda_available``
raise a :class:`RuntimeError` that says which package to install. Names
outside Chainer's no-CuPy surface (``Stream``, ``memory_pool``, ...) raise an
:class:`AttributeError` with the same advice, so ``hasattr`` answers False.

With catena-cuda installed on a machine where CuPy or the GPU cannot be used,
the plugin serves every name, except that ``cupy``, ``ndarray`` and
``Device``, which it cannot give, are the placeholders above.
"""

from __future__ import annotations

import types
from typing import Any


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
    from catena.backends import _cuda_fallback

    plugin = _plugin()
    if plugin is not None:
        try:
            return getattr(plugin, name)
        except AttributeError:
            # The plugin's own error says why (for example "needs CuPy and a
            # GPU: <reason>"), unless Chainer had a placeholder for the name.
            if name not in _cuda_fallback.PLACEHOLDERS:
                raise
        return _cuda_fallback.SURFACE[name]
    if name in _cuda_fallback.SURFACE:
        return _cuda_fallback.SURFACE[name]
    raise AttributeError(f'catena.backends.cuda.{name} needs the catena-cuda package: '
                         f'{_cuda_fallback.INSTALL}')


def __dir__() -> list[str]:
    from catena.backends import _cuda_fallback

    names = set(globals())
    plugin = _plugin()
    if plugin is None:
        names |= set(_cuda_fallback.SURFACE)
    else:
        names |= set(dir(plugin)) | _cuda_fallback.PLACEHOLDERS
    return sorted(n for n in names if not n.startswith('_'))
