"""Parameter and buffer helpers under ChainerMN's names."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend


def extract_params_set_data(model: Any) -> list[Any]:
    """The initialized parameters of ``model``, sorted by name."""
    return [param for _, param in sorted(model.namedparams()) if param.array is not None]


def extract_params_set_grad(model: Any, zero_fill: bool) -> list[Any]:
    """The parameters with a gradient (with ``zero_fill``, also those with only data)."""
    params = [param for _, param in sorted(model.namedparams()) if param.array is not None]
    if zero_fill:
        return params
    return [param for param in params if param.grad is not None]


def count_grad_elements(params: list[Any], zero_fill: bool) -> int:
    """How many gradient elements ``params`` hold (data elements with ``zero_fill``)."""
    if zero_fill:
        return sum(param.array.size for param in params)
    return sum(param.grad.size for param in params)


def get_device_memory_pointer(array: Any) -> Any:
    """Returns ``array`` as a C-contiguous array of its own kind (a copy if needed)."""
    xp = backend.get_array_module(array)
    return xp.ascontiguousarray(array)


def array_to_buffer_object(array: Any, mpi_dtype: Any = None) -> Any:
    """Returns what mpi4py takes as a buffer for ``array``.

    A NumPy array is its own buffer (made contiguous); another array (CuPy,
    for CUDA-aware MPI) comes as ``[array, mpi_dtype]``, the MPI datatype
    defaulting to the one of the array's dtype.
    """
    contiguous = get_device_memory_pointer(array)
    if isinstance(contiguous, numpy.ndarray):
        return contiguous
    if mpi_dtype is None:
        from catena.distributed import _mpi

        mpi_dtype = _mpi.get_mpi()._typedict[numpy.dtype(array.dtype).char]
    return [contiguous, mpi_dtype]
