"""Frozen tables of device types, kernels and backend modules, built from hooks.

The tables are module attributes that the hot path reads directly. Until the
plugins are loaded they are placeholders whose first use loads them.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy

from catena.backends._device import Device
from catena.backends._kernel import Kernel


class _LoadOnFirstUse(dict):  # type: ignore[type-arg]
    """A placeholder table: the first lookup loads the plugins, then retries."""

    def __init__(self, attribute: str) -> None:
        super().__init__()
        self._attribute = attribute

    def _table(self) -> dict[Any, Any]:
        from catena.plugins import _manager

        _manager.load()
        table = globals()[self._attribute]
        assert not isinstance(table, _LoadOnFirstUse), 'plugin tables were not built'
        return table  # type: ignore[no-any-return]

    def get(self, key: Any, default: Any = None) -> Any:
        return self._table().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        return self._table()[key]

    def __contains__(self, key: object) -> bool:
        return key in self._table()

    def __iter__(self) -> Any:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())

    def values(self) -> Any:
        return self._table().values()

    def items(self) -> Any:
        return self._table().items()

    def keys(self) -> Any:
        return self._table().keys()


device_types_by_prefix: dict[str, type[Device]]
device_type_by_array_type: dict[type, type[Device]]
kernels: dict[tuple[type, type], Kernel]
kernel_node_classes: _LoadOnFirstUse | frozenset[type]
backend_modules: dict[str, types.ModuleType]
problems: list[str] = []


def reset() -> None:
    """Turns every table back into a placeholder that loads plugins on first use."""
    global device_types_by_prefix, device_type_by_array_type, kernels, backend_modules
    global kernel_node_classes
    device_types_by_prefix = _LoadOnFirstUse('device_types_by_prefix')
    device_type_by_array_type = _LoadOnFirstUse('device_type_by_array_type')
    kernels = _LoadOnFirstUse('kernels')
    kernel_node_classes = _LoadOnFirstUse('kernel_node_classes')
    backend_modules = _LoadOnFirstUse('backend_modules')
    problems.clear()


reset()


def build(call_each: Callable[..., list[tuple[str, Any]]],
          failed: Callable[[str], bool] = lambda name: False) -> None:
    """Builds every table from the hooks (called once by the plugin manager).

    Args:
        call_each: Calls a hook's implementations one by one, isolating failures.
        failed: Whether a plugin has failed (in any hook); its contributions are
            dropped so that a half-working plugin leaves no trace.
    """
    global device_types_by_prefix, device_type_by_array_type, kernels, backend_modules
    global kernel_node_classes
    by_prefix: dict[str, type[Device]] = {}
    owners: dict[str, str] = {}
    by_array_type: dict[type, type[Device]] = {}
    for plugin, device_types in call_each('catena_register_device_types'):
        for device_type in device_types or ():
            if device_type.prefix in by_prefix:
                problems.append(
                    f'plugin {plugin!r} registers device prefix {device_type.prefix!r}, '
                    f'already registered by {by_prefix[device_type.prefix].__qualname__}; '
                    'ignored')
                continue
            by_prefix[device_type.prefix] = device_type
            owners[device_type.prefix] = plugin

    table: dict[tuple[type, type], Kernel] = {}
    kernel_owners: dict[tuple[type, type], str] = {}
    for plugin, registered in call_each('catena_register_kernels'):
        for kernel in registered or ():
            if kernel.device_type.prefix not in by_prefix:
                problems.append(
                    f'plugin {plugin!r} registers a kernel for '
                    f'{kernel.function_node.__qualname__} on the unknown device type '
                    f'{kernel.device_type.__qualname__}; ignored')
                continue
            if kernel.config_key is None and kernel.device_type.kernel_config_key:
                kernel = Kernel(kernel.function_node, kernel.device_type, kernel.forward,
                                kernel.device_type.kernel_config_key)
            for array_type in kernel.device_type.supported_array_types:
                key = (kernel.function_node, array_type)
                if key in table:
                    problems.append(
                        f'plugin {plugin!r} registers a second kernel for '
                        f'{kernel.function_node.__qualname__} on {array_type.__qualname__}; '
                        'the first one is kept')
                    continue
                table[key] = kernel
                kernel_owners[key] = plugin

    modules: dict[str, types.ModuleType] = {}
    module_owners: dict[str, str] = {}
    for plugin, provided in call_each('catena_backend_modules'):
        for name, module in (provided or {}).items():
            if name not in modules:
                modules[name] = module
                module_owners[name] = plugin

    for prefix, plugin in owners.items():
        if failed(plugin):
            del by_prefix[prefix]
    alive = set(by_prefix.values())
    table = {key: kernel for key, kernel in table.items()
             if not failed(kernel_owners[key]) and kernel.device_type in alive}
    for name, plugin in module_owners.items():
        if failed(plugin):
            del modules[name]
    for device_type in by_prefix.values():
        for array_type in device_type.supported_array_types:
            by_array_type.setdefault(array_type, device_type)
    if '@numpy' in by_prefix:
        # NumPy scalars live in host memory: they count as arrays of the CPU
        # device here, although CpuDevice.supported_array_types (Chainer's
        # answer) names numpy.ndarray only.
        by_array_type.setdefault(numpy.generic, by_prefix['@numpy'])

    device_types_by_prefix = by_prefix
    device_type_by_array_type = by_array_type
    kernels = table
    kernel_node_classes = frozenset(node_class for node_class, _ in table)
    backend_modules = modules


def device_type_of(array: Any) -> type[Device] | None:
    """Returns the registered Device class of ``array``'s type, or None."""
    array_type = type(array)
    if array_type is numpy.ndarray:
        from catena.backends._numpy import CpuDevice

        return CpuDevice
    device_type = device_type_by_array_type.get(array_type)
    if device_type is not None:
        return device_type
    for base in array_type.__mro__[1:]:
        device_type = device_type_by_array_type.get(base)
        if device_type is not None:
            return device_type
    return None
