"""The CUDA device, ``'@cupy:N'``, whose arrays are :class:`cupy.ndarray`.

:class:`GpuDevice` is defined without importing CuPy. The plugin hook calls
:func:`registered_type`, which probes CuPy once: when CuPy imports and a GPU
is visible, it sets ``GpuDevice.supported_array_types`` to
``(cupy.ndarray,)``; otherwise the class stays registered with no array types
and :meth:`GpuDevice.unavailable_reason` says why, so that
``catena.get_device('@cupy:0')`` raises a :class:`RuntimeError` naming the
reason instead of "unknown device".
"""

from __future__ import annotations

import types
from typing import Any, ClassVar

import numpy

from catena.backends import Device
from catena_cuda import _runtime


class GpuDevice(Device):
    """A CUDA GPU, named ``'@cupy:N'`` (``'@cupy'`` means ``'@cupy:0'``).

    Args:
        device: The GPU index, or a :class:`cupy.cuda.Device` (anything with
            an integer ``id``).

    .. admonition:: Example

        >>> device = catena.get_device('@cupy:0')
        >>> x = device.send(numpy.arange(3))
        >>> device.to_numpy(x)
        array([0, 1, 2])
    """

    prefix: ClassVar[str] = '@cupy'
    supported_array_types: ClassVar[tuple[type, ...]] = ()
    legacy_forward: ClassVar[str] = 'forward_gpu'
    kernel_config_key: ClassVar[str | None] = 'use_cudnn'

    def __init__(self, device: Any = 0) -> None:
        device_id = getattr(device, 'id', device)
        if isinstance(device_id, bool) or not isinstance(device_id, (int, numpy.integer)):
            raise TypeError(
                'device must be a GPU index (int) or a cupy.cuda.Device; '
                f'got {device!r} ({type(device).__name__})')
        if device_id < 0:
            raise ValueError(f'a GPU index must be >= 0, got {device_id}')
        self.device_id = int(device_id)

    @classmethod
    def from_device_id(cls, device_id: int) -> GpuDevice:
        """Returns the device of GPU ``device_id`` (as Chainer's ``GpuDevice``).

        Args:
            device_id: The GPU index.

        Returns:
            GpuDevice: The device.
        """
        return cls(device_id)

    @classmethod
    def parse(cls, rest: str | None) -> GpuDevice:
        if rest is None:
            return cls(0)
        if not rest.isdigit():
            raise ValueError(
                f'invalid device spec {cls.prefix}:{rest!r}: the part after "@cupy:" must be '
                'a GPU index such as 0, as in "@cupy:0"')
        return cls._checked(int(rest))

    @classmethod
    def from_array(cls, array: Any) -> GpuDevice | None:
        """Returns the device of a CuPy array, or None for anything else."""
        if _runtime.probe() is not None:
            return None
        if not isinstance(array, _runtime.cupy_module().ndarray):
            return None
        return cls(array.device.id)

    @classmethod
    def from_legacy_id(cls, device_id: int) -> GpuDevice | None:
        if device_id < 0:
            return None
        return cls._checked(device_id)

    @classmethod
    def from_native(cls, device: Any) -> GpuDevice | None:
        if _runtime.probe() is not None:
            return None
        if isinstance(device, _runtime.cupy_module().cuda.Device):
            return cls._checked(device.id)
        return None

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return _runtime.probe()

    @classmethod
    def _checked(cls, device_id: int) -> GpuDevice:
        if _runtime.probe() is None:
            count = _runtime.device_count()
            if device_id >= count:
                raise ValueError(
                    f'device "@cupy:{device_id}" does not exist: {count} GPU(s) are visible '
                    f'("@cupy:0" to "@cupy:{count - 1}"); CUDA_VISIBLE_DEVICES may hide others')
        return cls(device_id)

    @property
    def name(self) -> str:
        return f'{self.prefix}:{self.device_id}'

    @property
    def xp(self) -> types.ModuleType:
        return _runtime.cupy_module()

    @property
    def device(self) -> Any:
        """The :class:`cupy.cuda.Device` of this GPU."""
        return _runtime.cupy_module().cuda.Device(self.device_id)

    def create_context(self) -> Any:
        return self.device

    def use(self) -> None:
        self.device.use()

    def send_array(self, array: Any) -> Any:
        cupy = _runtime.cupy_module()
        if isinstance(array, cupy.ndarray):
            if array.device.id == self.device_id:
                return array
            # ndarray.copy() allocates on the current device, peer-to-peer or
            # through the host as the hardware allows.
            with self.device:
                return array.copy()
        if not isinstance(array, numpy.ndarray):
            from catena import backend

            array = backend.get_device_from_array(array).to_numpy(array)
        with self.device:
            return cupy.asarray(array)

    def to_numpy(self, array: Any) -> numpy.ndarray:
        return array.get()


def registered_type() -> type[GpuDevice]:
    """Probes CuPy once and returns :class:`GpuDevice`, ready to register.

    Returns:
        type: :class:`GpuDevice`, whose ``supported_array_types`` is
        ``(cupy.ndarray,)`` when CUDA works here and ``()`` otherwise.
    """
    if _runtime.probe() is None:
        GpuDevice.supported_array_types = (_runtime.cupy_module().ndarray,)
    return GpuDevice
