"""Arrays as MPI buffers: descriptions, byte views, and host staging for device arrays."""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import types
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy

from catena import backend
from catena.distributed import _mpi

_staging_warned = False


@dataclasses.dataclass(frozen=True)
class ArraySpec:
    """What a receiver needs to allocate an array: shape, dtype and array module name."""

    shape: tuple[int, ...]
    dtype: str
    module: str

    @property
    def nbytes(self) -> int:
        return int(numpy.prod(self.shape, dtype=numpy.int64)) * numpy.dtype(self.dtype).itemsize


def spec_of(array: Any) -> ArraySpec:
    """Describes ``array`` (which must be an array, not a Variable or a list)."""
    if not hasattr(array, 'shape') or not hasattr(array, 'dtype'):
        raise TypeError(f'expected an array (NumPy or a device array), got {type(array).__name__}')
    module = backend.get_array_module(array)
    return ArraySpec(tuple(int(n) for n in array.shape), numpy.dtype(array.dtype).str,
                     getattr(module, '__name__', 'numpy'))


def array_module(name: str) -> types.ModuleType:
    """The array module called ``name`` when this process has loaded it, NumPy otherwise.

    Nothing is imported here: a process that receives CuPy arrays has CuPy loaded
    already when it works on a GPU, and gets NumPy arrays otherwise.
    """
    if name != 'numpy':
        module = sys.modules.get(name)
        if module is not None and hasattr(module, 'empty'):
            return module
    return numpy


def contiguous(array: Any) -> Any:
    """``array`` itself when it is C-contiguous, a C-contiguous copy otherwise."""
    return array if array.flags.c_contiguous else array.copy()


def byte_view(array: Any) -> Any:
    """A flat uint8 view of a C-contiguous array."""
    return array.reshape(-1).view(numpy.uint8)


def concat_bytes(arrays: Sequence[Any], xp: types.ModuleType) -> Any:
    """One flat uint8 array holding the bytes of ``arrays`` one after another."""
    pieces = [byte_view(contiguous(array)) for array in arrays]
    if not pieces:
        return xp.empty(0, dtype=numpy.uint8)
    return xp.concatenate(pieces)


def split_bytes(flat: Any, specs: Sequence[ArraySpec]) -> tuple[Any, ...]:
    """Cuts a flat uint8 array into fresh arrays described by ``specs``."""
    arrays = []
    offset = 0
    for spec in specs:
        piece = flat[offset:offset + spec.nbytes]
        arrays.append(piece.view(numpy.dtype(spec.dtype)).reshape(spec.shape).copy())
        offset += spec.nbytes
    return tuple(arrays)


@contextlib.contextmanager
def mpi_buffer(array: Any, *, writeback: bool, host_only: bool = False) -> Iterator[Any]:
    """Yields a buffer MPI can use for a flat, C-contiguous ``array``.

    NumPy arrays are used as they are. A device array is passed to MPI directly
    when the MPI library is CUDA-aware (and ``host_only`` is false); otherwise it
    is copied to host memory (with a warning, once per process), and copied
    back afterwards when ``writeback`` is true.

    Args:
        array: The array (already flat and C-contiguous).
        writeback: Whether MPI writes into the buffer.
        host_only: Whether the operation must see host memory (a reduction
            implemented in Python).
    """
    if isinstance(array, numpy.ndarray):
        yield array
        return
    device = backend.get_device_from_array(array)
    if (not host_only and hasattr(array, '__cuda_array_interface__')
            and _mpi.cuda_aware()):
        device.synchronize()
        yield array
        return
    _warn_staging(device)
    host = numpy.ascontiguousarray(device.to_numpy(array))
    yield host
    if writeback:
        backend.copyto(array, host)


def _warn_staging(device: Any) -> None:
    global _staging_warned
    if not _staging_warned:
        _staging_warned = True
        warnings.warn(
            f'catena.distributed: this MPI library is not CUDA-aware (or the operation needs '
            f'host memory), so arrays on {device} are copied through host memory for every '
            f'transfer, which is slow. Use a CUDA-aware MPI, or the pure_nccl communicator '
            f'of catena-cuda.', RuntimeWarning, stacklevel=4)
