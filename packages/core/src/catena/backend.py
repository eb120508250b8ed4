"""Device lookup, transfer and array-module selection (``catena.backend``)."""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator
from typing import Any

import numpy

from catena.backends import _registry
from catena.backends._device import Device
from catena.backends._numpy import CpuDevice
from catena.variable import Variable

_cpu_device = CpuDevice()


def get_device(device_spec: Any) -> Device:
    """Returns the device that ``device_spec`` names.

    Args:
        device_spec: A :class:`Device`; a spec string such as ``'@numpy'``,
            ``'@cupy:0'`` or ``'@intel64'``; a Chainer-style integer (``-1``
            for the CPU, ``n >= 0`` for GPU ``n``); or the :mod:`numpy` module.

    Returns:
        Device: The device.
    """
    if isinstance(device_spec, Device):
        return device_spec
    if isinstance(device_spec, str):
        return _device_from_spec_string(device_spec)
    if isinstance(device_spec, (int, numpy.integer)) and not isinstance(device_spec, bool):
        return _device_from_legacy_id(int(device_spec))
    if device_spec is numpy:
        return _cpu_device
    if isinstance(device_spec, types.ModuleType):
        for device_type in _registry.device_types_by_prefix.values():
            if device_type.unavailable_reason() is None:
                device = device_type.parse(None)
                if device.xp is device_spec:
                    return device
    for device_type in _registry.device_types_by_prefix.values():
        native = device_type.from_native(device_spec)
        if native is not None:
            return native
    raise TypeError(
        'device_spec must be a Device, a spec string such as "@numpy" or "@cupy:0", '
        'an integer, the numpy module or a backend\'s device object (cupy.cuda.Device); '
        f'got {device_spec!r} ({type(device_spec).__name__})')


def _device_from_spec_string(spec: str) -> Device:
    if not spec.startswith('@'):
        raise ValueError(
            f'invalid device spec {spec!r}: a spec starts with "@" (for example "@numpy", '
            '"@cupy:0", "@intel64"); ChainerX specs such as "native:0" are not supported '
            '(docs/compat.md)')
    prefix, colon, rest = spec.partition(':')
    device_type = _registry.device_types_by_prefix.get(prefix)
    if device_type is None:
        raise ValueError(f'unknown device {spec!r}: {_known_devices_text()}')
    reason = device_type.unavailable_reason()
    if reason is not None:
        raise RuntimeError(f'device {spec!r} is unavailable: {reason}')
    return device_type.parse(rest if colon else None)


def _device_from_legacy_id(device_id: int) -> Device:
    if device_id < 0:
        return _cpu_device
    for device_type in _registry.device_types_by_prefix.values():
        device = device_type.from_legacy_id(device_id)
        if device is not None:
            reason = device_type.unavailable_reason()
            if reason is not None:
                raise RuntimeError(f'device {device.name!r} is unavailable: {reason}')
            return device
    raise ValueError(
        f'device id {device_id} names a GPU, but no GPU device type is registered: '
        f'{_known_devices_text()}. Install catena-cuda for GPUs.')


def _known_devices_text() -> str:
    from catena.plugins import _manager

    known = ', '.join(sorted(_registry.device_types_by_prefix)) or 'none'
    text = f'registered device types are {known}'
    failed = _manager.failures()
    if failed:
        text += '; plugins that failed to load: ' + '; '.join(
            f'{name} ({reason})' for name, reason in failed.items())
    return text


def get_device_from_array(array: Any) -> Device:
    """Returns the device that holds ``array`` (a Variable's array for a Variable).

    Objects that are not arrays of a registered device (Python scalars, None)
    belong to the CPU device, as in Chainer.
    """
    if isinstance(array, Variable):
        array = array.array
    if type(array) is numpy.ndarray:
        return _cpu_device
    device_type = _registry.device_type_of(array)
    if device_type is None:
        return _cpu_device
    return device_type.from_array(array)


def get_array_module(*args: Any) -> types.ModuleType:
    """Returns the array module (NumPy or a backend's) for the given arrays.

    Args:
        args: Arrays, Variables or other objects. The module of the first one
            that lives off the NumPy CPU device is returned; NumPy otherwise.
    """
    for arg in args:
        array_type = arg.__class__
        if array_type is numpy.ndarray:
            continue
        if isinstance(arg, Variable):
            arg = arg.array
            array_type = arg.__class__
        if array_type is numpy.ndarray or arg is None or array_type in (int, float, bool):
            continue
        device_type = _registry.device_type_of(arg)
        if device_type is not None and device_type is not CpuDevice:
            return device_type.from_array(arg).xp
    return numpy


@contextlib.contextmanager
def using_device(device_spec: Any) -> Iterator[None]:
    """Makes a device current within a ``with`` block.

    Args:
        device_spec: Anything :func:`get_device` accepts.
    """
    device = get_device(device_spec)
    with device.create_context():
        yield


def copyto(dst: Any, src: Any) -> None:
    """Copies ``src`` into the array ``dst``, transferring between devices if needed."""
    dst_device = get_device_from_array(dst)
    src = dst_device.send_array(src)
    dst_device.xp.copyto(dst, src)


def get_array_types() -> tuple[type, ...]:
    """Returns every array type of the registered devices."""
    return tuple(_registry.device_type_by_array_type)


def get_cpu_array_types() -> tuple[type, ...]:
    """Returns the array types that live in host memory (NumPy's)."""
    return (numpy.ndarray, numpy.generic)


def is_arrays_compatible(arrays: Any) -> bool:
    """Whether all (non-None) arrays live on the same kind of device."""
    kinds = {_registry.device_type_of(a) for a in arrays if a is not None}
    return len(kinds) <= 1


def __getattr__(name: str) -> Any:
    # Chainer spells the plugin devices backend.GpuDevice and backend.Intel64Device.
    prefixes = {'GpuDevice': '@cupy', 'Intel64Device': '@intel64'}
    if name in prefixes:
        device_type = _registry.device_types_by_prefix.get(prefixes[name])
        if device_type is not None:
            return device_type
        package = 'catena-cuda' if name == 'GpuDevice' else 'catena-intel64'
        raise AttributeError(f'catena.backend.{name} needs the {package} package '
                             f'(pip install {package})')
    raise AttributeError(f'module catena.backend has no attribute {name!r}')


__all__ = [
    'CpuDevice', 'Device', 'copyto', 'get_array_module', 'get_array_types',
    'get_cpu_array_types', 'get_device', 'get_device_from_array', 'is_arrays_compatible',
    'using_device',
]
