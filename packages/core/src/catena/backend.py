"""Device lookup, transfer and array-module selection (``catena.backend``)."""

from __future__ import annotations

import contextlib
import types
from typing import Any

import numpy

from catena.backends import _registry
from catena.backends._chainerx import ChainerxDevice, from_chx, to_chx
from catena.backends._device import Device
from catena.backends._numpy import CpuDevice
from catena.variable import Variable

_cpu_device = CpuDevice()


def get_device(device_spec: Any) -> Device:
    """Returns the device that ``device_spec`` names.

    Args:
        device_spec: A :class:`Device`; a spec string such as ``'@numpy'``,
            ``'@cupy:0'`` or ``'@intel64'``; a Chainer-style integer (``-1``
            for the CPU, ``n >= 0`` for GPU ``n``), also as a string
            (``'-1'``); or the :mod:`numpy` module.

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
    try:
        legacy_id = int(spec)
    except ValueError:
        pass
    else:
        # Chainer reads '-1', '0', ... as the integer ids of old scripts' --gpu.
        return _device_from_legacy_id(legacy_id)
    if not spec.startswith('@'):
        # Chainer reads specs without '@' as ChainerX devices.
        raise RuntimeError(
            f'invalid device spec {spec!r}: ChainerX device specs such as "native:0" are '
            'not supported by catena (docs/compat.md); catena\'s specs start with "@" '
            '(for example "@numpy", "@cupy:0", "@intel64")')
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


def get_device_from_array(*arrays: Any) -> Device:
    """Returns the device that holds the arrays (a Variable's array for a Variable).

    Args:
        arrays: One or more arrays. With several, the device of the first one
            that is not on the CPU (NumPy) device is returned, as in Chainer.

    Returns:
        Device: The device. Objects that are not arrays of a registered
        device (Python scalars, None) belong to the CPU device, as in Chainer.
    """
    for array in arrays:
        device = _device_of(array)
        if not isinstance(device, CpuDevice):
            return device
    return _cpu_device


def _device_of(array: Any) -> Device:
    if isinstance(array, Variable):
        array = array.array
    if type(array) is numpy.ndarray:
        return _cpu_device
    device_type = _registry.device_type_of(array)
    if device_type is None:
        return _cpu_device
    device = device_type.from_array(array)
    return _cpu_device if device is None else device


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
            device = device_type.from_array(arg)
            if device is not None:
                return device.xp
    return numpy


def using_device(device_spec: Any) -> contextlib.AbstractContextManager[Any]:
    """Makes a device current within a ``with`` block.

    The spec is checked when ``using_device`` is called, not when the block
    is entered.

    Args:
        device_spec: Anything :func:`get_device` accepts.

    Returns:
        A context manager.
    """
    return get_device(device_spec).create_context()


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
    # Chainer spells the plugin devices backend.GpuDevice and
    # backend.Intel64Device. They come from catena.backends.cuda and
    # catena.backends.intel64: the plugins' classes, or stand-ins that cannot
    # be instantiated, so that isinstance checks answer False.
    if name == 'GpuDevice':
        from catena.backends import cuda

        return cuda.GpuDevice
    if name == 'Intel64Device':
        from catena.backends import intel64

        return intel64.Intel64Device
    if name in ('cuda', 'intel64'):  # Chainer's backend module imports both
        import importlib

        return importlib.import_module(f'catena.backends.{name}')
    raise AttributeError(f'module catena.backend has no attribute {name!r}')


__all__ = [
    'ChainerxDevice', 'CpuDevice', 'Device', 'copyto', 'from_chx', 'get_array_module',
    'get_array_types', 'get_cpu_array_types', 'get_device', 'get_device_from_array',
    'is_arrays_compatible', 'to_chx', 'using_device',
]
