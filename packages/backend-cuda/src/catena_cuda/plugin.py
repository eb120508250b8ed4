"""catena-cuda's hook implementations.

Only hook implementations live here, and nothing heavy is imported at module
level: CuPy is imported inside the hooks, when catena first needs a device.
"""

from __future__ import annotations

import types
from typing import Any

from catena.plugins import hookimpl


@hookimpl
def catena_register_device_types() -> list[type]:
    from catena_cuda import device

    return [device.registered_type()]


@hookimpl
def catena_backend_modules() -> dict[str, types.ModuleType]:
    import catena_cuda

    return {'cuda': catena_cuda}


@hookimpl
def catena_test_backend_params() -> list[dict[str, Any]]:
    # The generic CuPy path, then the same device with every cuDNN and CuPy kernel on.
    return [{'device': '@cupy:0', 'config': {'use_cupy_kernels': 'never'}, 'marks': ['gpu']},
            {'device': '@cupy:0', 'config': {'use_cudnn': 'always'}, 'marks': ['gpu']}]


@hookimpl
def catena_runtime_info() -> list[str]:
    from catena_cuda import _runtime

    return _runtime.runtime_info()


@hookimpl
def catena_register_kernels() -> list[Any]:
    from catena_cuda import _runtime

    if _runtime.probe() is not None:
        return []
    from catena_cuda.kernels import all_kernels

    return all_kernels()


@hookimpl
def catena_config_defaults() -> dict[str, Any]:
    from catena_cuda import _config

    return _config.defaults()


@hookimpl
def catena_register_communicators() -> dict[str, Any]:
    from catena_cuda.distributed import communicators

    return communicators()
