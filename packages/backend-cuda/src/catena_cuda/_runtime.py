"""Finding CuPy and the GPUs once, and describing them for the runtime report.

Nothing here imports CuPy at module import: :func:`probe` does, on first use,
and remembers the outcome (a broken CUDA setup does not repair itself while
the process runs, and probing costs an import and a driver call).
"""

from __future__ import annotations

import threading
import types

from catena._install import install_hint

INSTALL_HINT = install_hint('catena-cuda', 'cuda12')

_lock = threading.Lock()
_probed = False
_cupy: types.ModuleType | None = None
_reason: str | None = None


def probe() -> str | None:
    """Imports CuPy and counts the visible GPUs, once per process.

    Returns:
        str or None: Why the CUDA device cannot be used here, or None when
        CuPy imports and at least one GPU is visible.
    """
    global _probed, _cupy, _reason
    if not _probed:
        with _lock:
            if not _probed:
                _cupy, _reason = _probe_now()
                if _cupy is not None and _reason is None:
                    from catena_cuda import _memory

                    _memory.setup_memory_pools(_cupy)
                _probed = True
    return _reason


def _probe_now() -> tuple[types.ModuleType | None, str | None]:
    try:
        import cupy
    except ImportError as error:
        if error.name == 'cupy':
            return None, f'CuPy is not installed ({INSTALL_HINT})'
        return None, f'CuPy could not be imported: {type(error).__name__}: {error}'
    except Exception as error:  # noqa: BLE001 - CuPy may fail in many ways on import
        return None, f'CuPy could not be imported: {type(error).__name__}: {error}'
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # noqa: BLE001 - CUDARuntimeError without a driver
        return cupy, ('no CUDA GPU is visible (cupy.cuda.runtime.getDeviceCount() failed: '
                      f'{type(error).__name__}: {error})')
    if count == 0:
        return cupy, 'no CUDA GPU is visible (cupy.cuda.runtime.getDeviceCount() == 0)'
    return cupy, None


def cupy_module() -> types.ModuleType:
    """Returns the CuPy module.

    Returns:
        module: :mod:`cupy`.

    Raises:
        RuntimeError: CuPy is missing or no GPU is visible; the message says
            which.
    """
    reason = probe()
    if reason is not None:
        raise RuntimeError(f'CUDA is not available: {reason}')
    assert _cupy is not None
    return _cupy


def device_count() -> int:
    """Returns the number of visible GPUs (0 when CUDA is unusable)."""
    if probe() is not None:
        return 0
    return int(cupy_module().cuda.runtime.getDeviceCount())


def runtime_info() -> list[str]:
    """Returns lines on CuPy, CUDA, the GPUs and cuDNN for the runtime report."""
    reason = probe()
    lines = []
    if _cupy is None:
        return [f'CuPy: unavailable ({reason})']
    cupy = _cupy
    if reason is not None:
        lines.append(f'CuPy: {cupy.__version__}, unavailable ({reason})')
    else:
        lines.append(f'CuPy: {cupy.__version__}')
        try:
            from catena_cuda import _memory

            lines.extend(_gpu_lines(cupy))
            lines.append(_memory.setup_memory_pools(cupy).describe())
        except Exception as error:  # noqa: BLE001 - a report must not raise
            lines.append(f'CUDA details unavailable: {type(error).__name__}: {error}')
    lines.append(_cudnn_frontend_line())
    if reason is None:
        lines.append(_nccl_line())
    return lines


def _gpu_lines(cupy: types.ModuleType) -> list[str]:
    lines = []
    runtime = cupy.cuda.runtime
    lines.append(f'CUDA runtime: {_cuda_version(runtime.runtimeGetVersion())}, '
                 f'driver: {_cuda_version(runtime.driverGetVersion())}')
    for index in range(runtime.getDeviceCount()):
        props = runtime.getDeviceProperties(index)
        name = props.get('name', b'?')
        if isinstance(name, bytes):
            name = name.decode(errors='replace')
        memory = props.get('totalGlobalMem', 0) / 2 ** 30
        lines.append(f'GPU @cupy:{index}: {name} (compute capability '
                     f'{props.get("major", "?")}.{props.get("minor", "?")}, '
                     f'{memory:.0f} GiB)')
    return lines


def _cuda_version(number: int) -> str:
    # CUDA encodes versions as 1000 * major + 10 * minor (12040 is 12.4).
    return f'{number // 1000}.{number % 1000 // 10}'


def _cudnn_frontend_line() -> str:
    from catena_cuda.kernels import _cudnn

    reason = _cudnn.cudnn_available()
    if reason is not None:
        return f'cuDNN: unavailable ({reason}); convolutions and batch normalization run ' \
               'on the generic CuPy code'
    import cudnn  # the nvidia-cudnn-frontend distribution

    version = getattr(cudnn, '__version__', 'unknown version')
    return f'cuDNN: backend {_cudnn.backend_version()}, frontend {version}'


def _nccl_line() -> str:
    from catena_cuda.distributed import _nccl

    try:
        nccl = _nccl.load_nccl()
    except RuntimeError as error:
        return f'NCCL: unavailable ({error})'
    try:
        version = f' {nccl.get_version()}'
    except Exception:  # noqa: BLE001 - a report must not raise
        version = ''
    return f'NCCL:{version} (the pure_nccl communicator)'
