"""Loading oneDNN's shared library (``libdnnl.so.3``) with :mod:`ctypes`.

The library comes from the ``onednn-cpu-gomp`` wheel, which installs it as
wheel *data* under ``<prefix>/lib/`` (beside no Python package), so it is
found through the distribution's file list. It links against the GNU OpenMP
runtime ``libgomp.so.1``, which the wheel does not ship: the system must
provide it (Debian/Ubuntu ``libgomp1``, Fedora/RHEL ``libgomp``; present
wherever GCC is installed).

``CATENA_ONEDNN_LIBRARY=/path/to/libdnnl.so.3`` loads another build instead.
The outcome of loading is remembered: :func:`load` tries once per process.

Unless the user has set ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT``, loading sets
``OMP_WAIT_POLICY=PASSIVE`` first (libgomp reads it when it is loaded): by
default OpenMP threads keep spinning on the cores after each oneDNN call,
which slows whatever runs next (NumPy's BLAS threads, data-loading
processes) and makes oneDNN itself erratic on a busy machine. A sleeping
thread costs a few microseconds to wake at the next call.
"""

from __future__ import annotations

import ctypes
import importlib.metadata
import os
import threading
from typing import NamedTuple

DISTRIBUTION = 'onednn-cpu-gomp'
SONAME = 'libdnnl.so.3'
ENV_LIBRARY = 'CATENA_ONEDNN_LIBRARY'

# dnnl_version_t.cpu_runtime values (DNNL_RUNTIME_* in dnnl_types.h).
_RUNTIMES = {0: 'none', 1: 'sequential', 2: 'OpenMP', 4: 'TBB', 8: 'threadpool',
             256: 'OpenCL', 512: 'SYCL'}

# dnnl_cpu_isa_t values of oneDNN 3.x (dnnl_types.h).
_ISAS = {
    0x0: 'default', 0x1: 'sse41', 0x3: 'avx', 0x7: 'avx2', 0xf: 'avx2_vnni',
    0x1f: 'avx2_vnni_2', 0x27: 'avx512_core', 0x67: 'avx512_core_vnni',
    0xe7: 'avx512_core_bf16', 0x1ef: 'avx512_core_fp16', 0xfef: 'avx512_core_amx',
    0x1fef: 'avx512_core_amx_fp16',
}


class _VersionStruct(ctypes.Structure):
    # Mirrors dnnl_version_t: {int major, minor, patch; const char *hash;
    # unsigned cpu_runtime, gpu_runtime;}.
    _fields_ = [
        ('major', ctypes.c_int),
        ('minor', ctypes.c_int),
        ('patch', ctypes.c_int),
        ('hash', ctypes.c_char_p),
        ('cpu_runtime', ctypes.c_uint),
        ('gpu_runtime', ctypes.c_uint),
    ]


class DnnlVersion(NamedTuple):
    """The version of the loaded oneDNN library."""

    major: int
    minor: int
    patch: int
    hash: str
    cpu_runtime: str
    gpu_runtime: str

    def __str__(self) -> str:
        return f'{self.major}.{self.minor}.{self.patch}'


_lock = threading.Lock()
_tried = False
_library: ctypes.CDLL | None = None
_path: str | None = None
_error: str | None = None


def load() -> ctypes.CDLL:
    """Returns oneDNN's library, loading it on first call.

    Returns:
        ctypes.CDLL: The loaded ``libdnnl.so.3``.

    Raises:
        RuntimeError: The library or its OpenMP runtime cannot be loaded; the
            message says why and what to install.
    """
    global _tried, _library, _path, _error
    if not _tried:
        with _lock:
            if not _tried:
                try:
                    _path = find_library()
                    _quiet_openmp_threads()
                    _library = _open(_path)
                except RuntimeError as error:
                    _error = str(error)
                _tried = True
    if _library is None:
        raise RuntimeError(_error)
    return _library


def load_error() -> str | None:
    """Returns why oneDNN cannot be loaded, or None when it can (loads it)."""
    try:
        load()
    except RuntimeError as error:
        return str(error)
    return None


def library_path() -> str | None:
    """Returns the path of the library that was (or would have been) loaded."""
    load_error()
    return _path


def find_library() -> str:
    """Returns the path (or soname) of ``libdnnl.so.3`` to load.

    Looks at ``$CATENA_ONEDNN_LIBRARY``, then the files of the
    ``onednn-cpu-gomp`` distribution.

    Raises:
        RuntimeError: Neither names a library.
    """
    override = os.environ.get(ENV_LIBRARY)
    if override:
        return override
    try:
        files = importlib.metadata.files(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise RuntimeError(
            f'oneDNN is not installed: the {DISTRIBUTION} package is missing '
            f'(pip install {DISTRIBUTION}, or reinstall catena-intel64)') from None
    for file in files or ():
        if file.name == SONAME:
            return os.path.normpath(file.locate())
    raise RuntimeError(f'the {DISTRIBUTION} package lists no {SONAME} '
                       f'(pip install --force-reinstall {DISTRIBUTION})')


def _quiet_openmp_threads() -> None:
    if 'OMP_WAIT_POLICY' not in os.environ and 'GOMP_SPINCOUNT' not in os.environ:
        os.environ['OMP_WAIT_POLICY'] = 'PASSIVE'


def _open(path: str) -> ctypes.CDLL:
    try:
        library = ctypes.CDLL(path)
    except OSError as error:
        message = str(error)
        if 'libgomp' in message:
            raise RuntimeError(
                f'oneDNN ({path}) needs the GNU OpenMP runtime libgomp.so.1, which was not '
                'found: install it with the system package manager (apt-get install '
                f'libgomp1, dnf install libgomp, apk add libgomp); loader said: {message}'
            ) from None
        raise RuntimeError(f'oneDNN could not be loaded from {path}: {message}') from None
    library.dnnl_version.restype = ctypes.POINTER(_VersionStruct)
    library.dnnl_version.argtypes = []
    library.dnnl_get_effective_cpu_isa.restype = ctypes.c_int
    library.dnnl_get_effective_cpu_isa.argtypes = []
    return library


def dnnl_version() -> DnnlVersion:
    """Returns the version of the loaded oneDNN (``dnnl_version()`` of its C API).

    Returns:
        DnnlVersion: Major, minor and patch numbers, the git hash, and the
        CPU and GPU runtimes.

    Raises:
        RuntimeError: oneDNN cannot be loaded.
    """
    raw = load().dnnl_version().contents
    return DnnlVersion(
        major=raw.major, minor=raw.minor, patch=raw.patch,
        hash=raw.hash.decode(errors='replace') if raw.hash else '',
        cpu_runtime=_RUNTIMES.get(raw.cpu_runtime, f'unknown ({raw.cpu_runtime})'),
        gpu_runtime=_RUNTIMES.get(raw.gpu_runtime, f'unknown ({raw.gpu_runtime})'))


def effective_cpu_isa() -> str:
    """Returns the instruction set that oneDNN's kernels use on this CPU.

    Returns:
        str: The ``dnnl_cpu_isa_t`` name without its prefix, for example
        ``'avx512_core'``, or its hexadecimal value if this table lacks it.
    """
    value = load().dnnl_get_effective_cpu_isa() & 0xFFFFFFFF
    return _ISAS.get(value, hex(value))
