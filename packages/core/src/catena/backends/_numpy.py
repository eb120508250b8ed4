"""The NumPy CPU device (``'@numpy'``), registered as a built-in plugin."""

from __future__ import annotations

import types
from typing import Any

import numpy

from catena.backends._device import Device
from catena.plugins import hookimpl


class CpuDevice(Device):
    """The CPU device whose arrays are :class:`numpy.ndarray` (``'@numpy'``)."""

    prefix = '@numpy'
    supported_array_types = (numpy.ndarray, numpy.generic)
    legacy_forward = 'forward_cpu'
    kernel_config_key = 'use_ideep'

    @property
    def xp(self) -> types.ModuleType:
        return numpy

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
        config = numpy.show_config(mode='dicts')
    except TypeError:  # NumPy < 1.25 prints instead of returning a dict
        return 'BLAS unknown'
    blas = config.get('Build Dependencies', {}).get('blas', {})
    name = blas.get('name', 'unknown')
    version = blas.get('version', '')
    return f'BLAS: {name} {version}'.strip()
