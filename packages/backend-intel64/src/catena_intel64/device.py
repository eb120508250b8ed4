"""The Intel CPU device, ``'@intel64'``, accelerated by oneDNN.

Its arrays are plain :class:`numpy.ndarray` (so it claims no array type of
its own: NumPy arrays map back to ``'@numpy'``); what it adds is oneDNN
kernels, which catena-intel64 registers for NumPy arrays too.
"""

from __future__ import annotations

import types
from typing import Any, ClassVar

import numpy

from catena.backends import Device
from catena_intel64 import _dnnl


class Intel64Device(Device):
    """The Intel CPU device (``'@intel64'``); arrays are NumPy arrays.

    .. admonition:: Example

        >>> device = catena.get_device('@intel64')
        >>> device.send(numpy.arange(3))
        array([0, 1, 2])
    """

    prefix: ClassVar[str] = '@intel64'
    supported_array_types: ClassVar[tuple[type, ...]] = ()
    legacy_forward: ClassVar[str] = 'forward_cpu'
    kernel_config_key: ClassVar[str | None] = 'use_ideep'

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return _dnnl.load_error()

    @property
    def xp(self) -> types.ModuleType:
        return numpy

    def send_array(self, array: Any) -> Any:
        if type(array) is numpy.ndarray:
            return array
        if isinstance(array, numpy.generic):
            return numpy.asarray(array)
        from catena import backend

        return numpy.asarray(backend.get_device_from_array(array).to_numpy(array))
