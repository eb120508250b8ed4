"""Device backends.

The NumPy CPU device lives in the core; other devices come from plugins.
``catena.backends.cuda`` and ``catena.backends.intel64`` import on every
machine: without their plugins they offer the CPU-safe part of Chainer's
surface and say which package to install for the rest.
"""

from __future__ import annotations

from catena.backends._device import Device
from catena.backends._kernel import Fallback, Kernel
from catena.backends._numpy import CpuDevice

__all__ = ['CpuDevice', 'Device', 'Fallback', 'Kernel']
