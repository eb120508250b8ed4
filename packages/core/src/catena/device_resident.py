"""Objects whose arrays can move between devices (:class:`DeviceResident`)."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.backends._device import Device


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

    def __init__(self) -> None:
        self._device: Device = backend.get_device('@numpy')

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

    def to_device(self, device: Any) -> DeviceResident:
        """Moves every array of the object to ``device``, in place.

        Args:
            device: A device or anything :func:`catena.get_device` accepts.

        Returns:
            This object.
        """
        target = backend.get_device(device)
        self.device_resident_accept(_ToDeviceVisitor(target))
        return self

    def to_cpu(self) -> DeviceResident:
        """Moves every array to the NumPy CPU device."""
        return self.to_device('@numpy')

    def to_gpu(self, device: Any = None) -> DeviceResident:
        """Moves every array to a GPU (needs catena-cuda)."""
        return self.to_device(_gpu_device(device))

    def to_intel64(self) -> DeviceResident:
        """Moves every array to the ``'@intel64'`` device (needs catena-intel64)."""
        return self.to_device('@intel64')


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
        device_resident._device = self._device

    def visit_array(self, array: Any) -> Any:
        return None if array is None else self._device.send_array(array)

    def visit_variable(self, variable: Any) -> None:
        variable.to_device(self._device)
