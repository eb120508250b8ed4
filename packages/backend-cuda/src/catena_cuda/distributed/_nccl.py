"""NCCL through CuPy, behind a small interface that tests replace with a host fake.

:class:`NcclBackend` and :class:`NcclComm` are everything the ``pure_nccl``
communicator asks of NCCL: make a unique id, connect one rank, sum a buffer
over the ranks, broadcast a buffer. :class:`CupyNccl` implements them with
``cupy.cuda.nccl`` on :class:`cupy.ndarray` buffers; a test implements them
on NumPy arrays, so the logic around them (packing, casts, scaling,
bucketing, the lazy connection) runs without a GPU.
"""

from __future__ import annotations

import collections
import contextlib
import types
import warnings
from typing import Any, Protocol

import numpy

from catena_cuda import _runtime

_CPU_HINT = "for CPU arrays use create_communicator('flat') (or 'naive')"

# NCCL's reduction datatypes by NumPy dtype name (nccl.h's ncclDataType_t).
_DATATYPES = {
    'int8': 'NCCL_INT8', 'uint8': 'NCCL_UINT8', 'int32': 'NCCL_INT32',
    'uint32': 'NCCL_UINT32', 'int64': 'NCCL_INT64', 'uint64': 'NCCL_UINT64',
    'float16': 'NCCL_FLOAT16', 'float32': 'NCCL_FLOAT32', 'float64': 'NCCL_FLOAT64',
    'bfloat16': 'NCCL_BFLOAT16',
}


class NcclComm(Protocol):
    """One rank's NCCL communicator, bound to one GPU."""

    device: int
    """The GPU index the communicator was created on."""

    handle: Any
    """The library's communicator object (``cupy.cuda.nccl.NcclCommunicator``)."""

    def all_reduce_sum(self, send: Any, recv: Any) -> None:
        """Writes the elementwise sum over all ranks of ``send`` into ``recv``.

        Both are flat, C-contiguous device arrays of the same dtype and size
        on :attr:`device`; ``recv`` may be ``send`` (in place).
        """

    def bcast(self, buffer: Any, root: int) -> None:
        """Overwrites the flat, C-contiguous ``buffer`` with ``root``'s."""

    def destroy(self) -> None:
        """Frees the communicator (local, not collective)."""


class NcclBackend(Protocol):
    """The NCCL library and the arrays it works on."""

    def accepts(self, array: Any) -> bool:
        """Whether ``array`` is a device array NCCL can read and write."""

    def device_of(self, array: Any) -> int:
        """The GPU index of an accepted array."""

    def on_device(self, device: int) -> contextlib.AbstractContextManager[Any]:
        """A context in which ``device`` is the current GPU (buffers are allocated there)."""

    def unique_id(self) -> Any:
        """A new NCCL unique id (picklable), made by rank 0 and sent to the others."""

    def connect(self, size: int, unique_id: Any, rank: int, device: int) -> NcclComm:
        """Creates this rank's communicator on ``device`` (collective over the ``size`` ranks)."""


def datatype_and_count(dtype: Any, size: int, module: Any) -> tuple[int, int]:
    """The NCCL datatype and element count that sum an array of ``dtype`` and ``size``.

    A complex array is summed as twice as many real numbers (its real and
    imaginary parts are independent under a sum).

    Args:
        dtype: The array's dtype.
        size: The number of elements of the array.
        module: The NCCL module (``cupy.cuda.nccl``), which holds the constants.

    Returns:
        ``(datatype, count)``.

    Raises:
        TypeError: NCCL cannot sum this dtype (bool, strings, float128...).
    """
    dtype = numpy.dtype(dtype)
    if dtype.kind == 'c':
        dtype = numpy.dtype(f'f{dtype.itemsize // 2}')
        size *= 2
    name = _DATATYPES.get(dtype.name)
    if name is None or not hasattr(module, name):
        raise TypeError(f'NCCL cannot sum arrays of dtype {dtype}; it sums int8, uint8, '
                        f'(u)int32, (u)int64, float16, float32, float64 (and complex as pairs '
                        f'of floats)')
    return int(getattr(module, name)), int(size)


def missing_nccl_message(cuda_major: int | None) -> str:
    """What to install when CuPy imports but cannot load the NCCL library."""
    packages = {12: "'nvidia-nccl-cu12>=2.18.1,<3'", 13: "'nvidia-nccl-cu13'"}
    install = packages.get(cuda_major or 0)
    if install is None:
        install = ("'nvidia-nccl-cu12>=2.18.1,<3' (CUDA 12) or 'nvidia-nccl-cu13' "
                   '(CUDA 13)')
    return (f'the pure_nccl communicator needs NCCL 2, which CuPy could not load here '
            f'(cupy.cuda.nccl.available is False). Install it with pip install {install} '
            f'(CuPy loads NCCL from that package), or {_CPU_HINT}; naive and flat also take '
            f'GPU arrays through MPI.')


def _import_nccl() -> types.ModuleType:
    with warnings.catch_warnings():
        # CuPy warns when libnccl is missing; load_nccl raises a clearer error instead.
        warnings.simplefilter('ignore')
        from cupy.cuda import nccl
    return nccl


def _cuda_major() -> int | None:
    try:
        version = int(_runtime.cupy_module().cuda.runtime.runtimeGetVersion())
    except Exception:  # noqa: BLE001 - only picks the package name of a message
        return None
    return version // 1000


def load_nccl() -> types.ModuleType:
    """Returns ``cupy.cuda.nccl`` when CuPy, a GPU and the NCCL library are all there.

    Raises:
        RuntimeError: The message names what is missing and how to install it.
    """
    reason = _runtime.probe()
    if reason is not None:
        raise RuntimeError(f'the pure_nccl communicator needs CuPy and a CUDA GPU: {reason}; '
                           f'{_CPU_HINT}')
    try:
        module = _import_nccl()
    except ImportError as error:
        raise RuntimeError(f'the pure_nccl communicator could not import cupy.cuda.nccl: '
                           f'{error}') from error
    if not getattr(module, 'available', False):
        raise RuntimeError(missing_nccl_message(_cuda_major()))
    return module


def nccl_available() -> bool:
    """Whether :func:`load_nccl` succeeds (CuPy, a GPU and NCCL)."""
    try:
        load_nccl()
    except RuntimeError:
        return False
    return True


class CupyNccl:
    """:class:`NcclBackend` on ``cupy.cuda.nccl`` and :class:`cupy.ndarray` buffers.

    Every operation is enqueued on the current CUDA stream of the buffers'
    GPU, after the kernels that packed them and before those that unpack
    them, so nothing waits on the host.

    Attributes:
        calls: How many times each NCCL operation ran (``'connect'``,
            ``'all_reduce'``, ``'bcast'``), for tests and profiling.

    Raises:
        RuntimeError: CuPy, a GPU or NCCL is missing (see :func:`load_nccl`).
    """

    def __init__(self) -> None:
        self._nccl = load_nccl()
        self._cupy = _runtime.cupy_module()
        self.calls: collections.Counter[str] = collections.Counter()

    def accepts(self, array: Any) -> bool:
        return isinstance(array, self._cupy.ndarray)

    def device_of(self, array: Any) -> int:
        return int(array.device.id)

    def on_device(self, device: int) -> contextlib.AbstractContextManager[Any]:
        return self._cupy.cuda.Device(device)

    def unique_id(self) -> Any:
        return self._nccl.get_unique_id()

    def connect(self, size: int, unique_id: Any, rank: int, device: int) -> CupyNcclComm:
        with self._cupy.cuda.Device(device):
            handle = self._nccl.NcclCommunicator(size, unique_id, rank)
        self.calls['connect'] += 1
        return CupyNcclComm(self, handle, device)


class CupyNcclComm:
    """:class:`NcclComm` over a ``cupy.cuda.nccl.NcclCommunicator``."""

    def __init__(self, backend: CupyNccl, handle: Any, device: int) -> None:
        self._backend = backend
        self.handle = handle
        self.device = device

    def _stream_ptr(self) -> int:
        return int(self._backend._cupy.cuda.get_current_stream().ptr)

    def all_reduce_sum(self, send: Any, recv: Any) -> None:
        nccl = self._backend._nccl
        datatype, count = datatype_and_count(send.dtype, send.size, nccl)
        with self._backend.on_device(self.device):
            self.handle.allReduce(send.data.ptr, recv.data.ptr, count, datatype, nccl.NCCL_SUM,
                                  self._stream_ptr())
        self._backend.calls['all_reduce'] += 1

    def bcast(self, buffer: Any, root: int) -> None:
        nccl = self._backend._nccl
        # Bytes: a broadcast copies, so any dtype goes (bool and complex too).
        with self._backend.on_device(self.device):
            self.handle.bcast(buffer.data.ptr, buffer.nbytes, nccl.NCCL_UINT8, root,
                              self._stream_ptr())
        self._backend.calls['bcast'] += 1

    def destroy(self) -> None:
        if self.handle is not None:
            self.handle.destroy()
            self.handle = None
