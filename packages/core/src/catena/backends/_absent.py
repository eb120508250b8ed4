"""Stand-ins for device classes whose backend is not installed (or not supported).

Chainer defines ``backend.GpuDevice``, ``backend.Intel64Device`` and
``backend.ChainerxDevice`` on every machine, so that ``isinstance(device,
backend.GpuDevice)`` is simply False without a GPU. catena's device classes
come from plugins; without the plugin, these stand-ins take their names. They
are never registered, no array belongs to them, and making one raises a
:class:`RuntimeError` that says what to install.
"""

from __future__ import annotations

from typing import Any, ClassVar, NoReturn

from catena._install import install_hint
from catena.backends._device import Device


class AbsentDevice(Device):
    """Base of the stand-in device classes; it cannot be instantiated.

    Subclasses set ``prefix`` and ``missing``, the sentence that says why the
    device is unavailable and what to do about it.
    """

    missing: ClassVar[str] = 'this device is not available'

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(self.missing)

    @classmethod
    def parse(cls, rest: str | None) -> NoReturn:
        raise RuntimeError(cls.missing)

    @classmethod
    def from_array(cls, array: Any) -> None:
        """Returns None: no array lives on a device that is not installed."""
        return None

    @classmethod
    def from_legacy_id(cls, device_id: int) -> None:
        return None

    @classmethod
    def unavailable_reason(cls) -> str:
        return cls.missing


_CUDA_MISSING = ('CUDA is not available: install catena-cuda '
                 f'({install_hint("catena-cuda", "cuda12")})')


class GpuDevice(AbsentDevice):
    """Stands in for catena-cuda's ``GpuDevice`` (``'@cupy:N'``), which is not installed."""

    prefix = '@cupy'
    legacy_forward = 'forward_gpu'
    missing = _CUDA_MISSING

    @classmethod
    def from_device_id(cls, device_id: int) -> NoReturn:
        """Raises :class:`RuntimeError`: GPU devices need catena-cuda."""
        raise RuntimeError(cls.missing)


class Intel64Device(AbsentDevice):
    """Stands in for catena-intel64's ``Intel64Device`` (``'@intel64'``), not installed."""

    prefix = '@intel64'
    missing = ('Intel CPU acceleration (oneDNN, which replaces iDeep) is not available: '
               f'install catena-intel64 ({install_hint("catena-intel64")})')


class ChainerxDevice(AbsentDevice):
    """Chainer's ChainerX device; catena does not support ChainerX."""

    prefix = '@chainerx'
    missing = ('ChainerX is not supported by catena: use the devices "@numpy", "@cupy:N" '
               '(catena-cuda) or "@intel64" (catena-intel64) (docs/compat.md)')

    @classmethod
    def from_fallback_device(cls, device: Device) -> NoReturn:
        """Raises :class:`RuntimeError`: ChainerX is not supported."""
        raise RuntimeError(cls.missing)
