"""The NumPy CPU device (``'@numpy'``), registered as a built-in plugin."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any, cast

import numpy

from catena.backends._device import Device
from catena.plugins import hookimpl


class CpuDevice(Device):
    """The CPU device whose arrays are :class:`numpy.ndarray` (``'@numpy'``)."""

    prefix = '@numpy'
    supported_array_types = (numpy.ndarray,)
    legacy_forward = 'forward_cpu'
    kernel_config_key = 'use_ideep'

    @classmethod
    def from_array(cls, array: Any) -> CpuDevice | None:
        """Returns the CPU device for a NumPy array, None for anything else.

        NumPy scalars, Python scalars and arrays of other devices (including
        :class:`numpy.ndarray` subclasses that another device registered)
        give None; :func:`catena.backend.get_device_from_array` still places
        scalars on the CPU.
        """
        from catena.backends import _registry

        if isinstance(array, numpy.ndarray) and _registry.device_type_of(array) is cls:
            return cls()
        return None

    @property
    def xp(self) -> types.ModuleType:
        return numpy

    def __repr__(self) -> str:
        return '<CpuDevice (numpy)>'

    def send_array(self, array: Any) -> Any:
        if isinstance(array, numpy.ndarray) and type(array) is numpy.ndarray:
            return array
        if isinstance(array, numpy.generic):
            return numpy.asarray(array)
        from catena import backend

        source = backend.get_device_from_array(array)
        return numpy.asarray(source.to_numpy(array))


@hookimpl
def catena_register_device_types() -> list[type[Device]]:
    return [CpuDevice]


@hookimpl
def catena_test_backend_params() -> list[dict[str, Any]]:
    return [{'device': '@numpy'}]


@hookimpl
def catena_runtime_info() -> list[str]:
    return [f'NumPy: {numpy.__version__} ({_blas_name()})']


def _blas_name() -> str:
    try:
        # NumPy >= 1.25 takes ``mode`` and returns a dict; older stubs know neither.
        show_config = cast(Callable[..., Any], numpy.show_config)
        config = show_config(mode='dicts')
    except TypeError:  # NumPy < 1.25 prints instead of returning a dict
        return 'BLAS unknown'
    blas = config.get('Build Dependencies', {}).get('blas', {})
    name = blas.get('name', 'unknown')
    version = blas.get('version', '')
    return f'BLAS: {name} {version}'.strip()
