"""Objects whose arrays can move between devices (:class:`DeviceResident`)."""

from __future__ import annotations

import warnings
from typing import Any, TypeVar

from catena import backend
from catena.backends._device import Device

_T = TypeVar('_T', bound='DeviceResident')

# Methods a subclass must not override: moving goes through the visitor.
_FINAL_METHODS = ('to_device', 'to_chx', 'from_chx')
# Chainer's older per-device methods, still honoured when overridden.
_LEGACY_METHODS = ('to_cpu', 'to_gpu', 'to_intel64')
# Residents whose overridden legacy method is running (not to be re-entered).
_in_legacy_move: set[int] = set()


def _gpu_device(device: Any) -> Device:
    """Resolves Chainer's ``to_gpu(device)`` argument to a device."""
    if device is None:
        return backend.get_device('@cupy')
    if isinstance(device, Device):
        return device
    if isinstance(device, str):
        return backend.get_device(device)
    return backend.get_device(f'@cupy:{int(device)}')


class DeviceResident:
    """Base of objects that hold arrays on a device (links, optimizers, ...).

    A subclass implements :meth:`device_resident_accept` to visit its arrays;
    :meth:`to_device` moves them all.
    """

    _device: Device

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in _FINAL_METHODS:
            if name in cls.__dict__:
                raise TypeError(f'{cls.__name__} overrides {name}(), which a DeviceResident '
                                'must not override; override device_resident_accept() to '
                                'move additional arrays')
        for name in _LEGACY_METHODS:
            if name in cls.__dict__:
                warnings.warn(f'{cls.__name__} overrides {name}(), which is deprecated; '
                              'override device_resident_accept() instead',
                              DeprecationWarning, stacklevel=2)

    def __init__(self) -> None:
        self._device = backend.get_device('@numpy')

    @property
    def device(self) -> Device:
        """The device the object's arrays live on."""
        return self._device

    @property
    def xp(self) -> Any:
        """The array module of the device."""
        return self._device.xp

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Lets ``visitor`` visit this object (and, in subclasses, its arrays)."""
        visitor.visit_device_resident(self)

    def to_device(self: _T, device: Any) -> _T:
        """Moves every array of the object to ``device``, in place.

        Args:
            device: A device or anything :func:`catena.get_device` accepts.

        Returns:
            This object.
        """
        target = backend.get_device(device)
        self.device_resident_accept(_ToDeviceVisitor(target))
        return self

    def to_cpu(self: _T) -> _T:
        """Moves every array to the NumPy CPU device.

        .. deprecated:: Chainer v7
            Use ``to_device('@numpy')``.
        """
        _warn_legacy('to_cpu', "to_device('@numpy')")
        return self._legacy_move(backend.get_device('@numpy'))

    def to_gpu(self: _T, device: Any = None) -> _T:
        """Moves every array to a GPU (needs catena-cuda).

        .. deprecated:: Chainer v7
            Use ``to_device('@cupy:N')``.
        """
        _warn_legacy('to_gpu', "to_device('@cupy:N')")
        return self._legacy_move(_gpu_device(device))

    def to_intel64(self: _T) -> _T:
        """Moves every array to the ``'@intel64'`` device (needs catena-intel64).

        .. deprecated:: Chainer v7
            Use ``to_device('@intel64')``.
        """
        _warn_legacy('to_intel64', "to_device('@intel64')")
        return self._legacy_move(backend.get_device('@intel64'))

    def _legacy_move(self: _T, device: Device) -> _T:
        key = id(self)
        entered = key not in _in_legacy_move
        _in_legacy_move.add(key)
        try:
            return self.to_device(device)
        finally:
            if entered:
                _in_legacy_move.discard(key)


def _warn_legacy(name: str, replacement: str) -> None:
    warnings.warn(f'DeviceResident.{name}() is deprecated; use {replacement} instead',
                  DeprecationWarning, stacklevel=3)


def _overridden_legacy_move(resident: DeviceResident, device: Device) -> Any:
    """The subclass's own to_cpu/to_gpu/to_intel64 for ``device``, or None."""
    name = {'numpy': 'to_cpu', 'cupy': 'to_gpu', 'intel64': 'to_intel64'}.get(
        str(device).lstrip('@').split(':')[0])
    if name is None or getattr(type(resident), name) is getattr(DeviceResident, name):
        return None
    method = getattr(resident, name)
    if name == 'to_gpu':
        from catena.backends import cuda

        return lambda: method(cuda.Device(int(str(device).split(':')[1])))
    return method


class DeviceResidentsVisitor:
    """Visits device residents and their arrays (see :class:`DeviceResident`)."""

    def visit_device_resident(self, device_resident: DeviceResident) -> None:
        """Called for each device resident."""

    def visit_array(self, array: Any) -> Any:
        """Called for each array; returns the (possibly new) array."""
        return array

    def visit_variable(self, variable: Any) -> None:
        """Called for each Variable or Parameter."""


class _ToDeviceVisitor(DeviceResidentsVisitor):
    def __init__(self, device: Device) -> None:
        self._device = device

    def visit_device_resident(self, device_resident: DeviceResident) -> None:
        if id(device_resident) not in _in_legacy_move:
            legacy = _overridden_legacy_move(device_resident, self._device)
            if legacy is not None:
                _in_legacy_move.add(id(device_resident))
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter('ignore', DeprecationWarning)
                        legacy()
                finally:
                    _in_legacy_move.discard(id(device_resident))
        device_resident._device = self._device

    def visit_array(self, array: Any) -> Any:
        return None if array is None else self._device.send_array(array)

    def visit_variable(self, variable: Any) -> None:
        variable.to_device(self._device)
