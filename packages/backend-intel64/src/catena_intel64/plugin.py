"""catena-intel64's hook implementations.

Only hook implementations live here, and nothing heavy is imported at module
level: oneDNN is loaded inside the hooks, when catena first needs it.
"""

from __future__ import annotations

import types
from typing import Any

from catena.plugins import hookimpl


@hookimpl
def catena_register_device_types() -> list[type]:
    from catena_intel64.device import Intel64Device

    return [Intel64Device]


@hookimpl
def catena_backend_modules() -> dict[str, types.ModuleType]:
    import catena_intel64

    return {'intel64': catena_intel64}


@hookimpl
def catena_test_backend_params() -> list[dict[str, Any]]:
    return [{'device': '@intel64', 'config': {'use_ideep': 'always'}, 'marks': ['ideep']}]


@hookimpl
def catena_runtime_info() -> list[str]:
    from catena_intel64 import _dnnl

    reason = _dnnl.load_error()
    if reason is not None:
        return [f'oneDNN: unavailable ({reason})']
    version = _dnnl.dnnl_version()
    commit = f' ({version.hash})' if version.hash else ''
    from catena_intel64 import calibration

    return [f'oneDNN: {version}{commit}, CPU runtime {version.cpu_runtime}, '
            f'ISA {_dnnl.effective_cpu_isa()} ({_dnnl.library_path()})',
            calibration.status().describe()]


@hookimpl
def catena_register_kernels() -> list[Any]:
    from catena_intel64 import _dnnl

    if _dnnl.load_error() is not None:
        return []
    from catena_intel64.kernels import all_kernels

    return all_kernels()


@hookimpl
def catena_config_defaults() -> dict[str, Any]:
    import os

    calibration = os.environ.get('CATENA_IDEEP_CALIBRATION', '1').strip().lower()
    return {'ideep_fpmath_mode': os.environ.get('CATENA_IDEEP_FPMATH_MODE', 'strict'),
            'ideep_calibration': calibration not in ('0', 'off', 'false', 'no')}
