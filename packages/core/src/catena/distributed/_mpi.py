"""The one place that imports mpi4py, lazily, and what catena needs from it.

Importing ``catena.distributed`` must stay cheap and must not start MPI:
``import mpi4py.MPI`` initializes the MPI library, so it happens only when a
communicator is created (through :func:`get_mpi`).
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
from typing import Any

import numpy

from catena._install import install_hint

INSTALL_HINT = install_hint('catena', 'mpi')


def is_available() -> bool:
    """Whether mpi4py is installed (checked without importing it)."""
    return importlib.util.find_spec('mpi4py') is not None


@functools.cache
def get_mpi() -> Any:
    """Returns the ``mpi4py.MPI`` module, importing (and so initializing) MPI on first use.

    Raises:
        ImportError: When mpi4py (or the MPI library it needs) cannot be imported.
    """
    try:
        from mpi4py import MPI
    except ImportError as error:
        raise ImportError(
            'catena.distributed needs mpi4py and an MPI library; install both with '
            f'{INSTALL_HINT} (mpi4py with the Open MPI wheel), then start the program '
            f'with mpiexec -n N python script.py. The import failed with: {error}') from error
    return MPI


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

def _add_float16(inbuf: Any, inoutbuf: Any, datatype: Any) -> None:
    # MPI hands over raw 16-bit words; add them as IEEE half floats.
    target = numpy.frombuffer(inoutbuf, dtype=numpy.float16)
    target += numpy.frombuffer(inbuf, dtype=numpy.float16)


@functools.cache
def _float16_sum() -> tuple[Any, Any]:
    MPI = get_mpi()
    # Standard MPI has no half-precision type: carry the words as uint16 and sum
    # them with a user-defined operation (portable across MPI implementations).
    return MPI.UINT16_T, MPI.Op.Create(_add_float16, commute=True)


def sum_spec(dtype: numpy.dtype) -> tuple[Any, Any, bool]:
    """Returns how to sum arrays of ``dtype`` with MPI.

    Returns:
        ``(datatype, op, host_only)``: the MPI datatype that describes one
        element, the reduction operation, and whether the operation runs
        Python code on the buffer (so that device buffers must be staged
        through host memory).

    Raises:
        TypeError: For a dtype MPI cannot sum (not a number).
    """
    dtype = numpy.dtype(dtype)
    if dtype == numpy.float16:
        datatype, op = _float16_sum()
        return datatype, op, True
    if dtype.kind not in 'iufc':
        raise TypeError(f'cannot sum arrays of dtype {dtype} over MPI (expected a number dtype)')
    MPI = get_mpi()
    # Predefined datatypes only: MPI's built-in operations reject derived ones.
    fromcode = getattr(MPI.Datatype, 'fromcode', None)  # mpi4py 4
    datatype = fromcode(dtype.char) if fromcode is not None else MPI._typedict[dtype.char]
    return datatype, MPI.SUM, False


# ---------------------------------------------------------------------------
# CUDA-aware MPI
# ---------------------------------------------------------------------------

def _loaded_mpi_libraries() -> list[str]:
    try:
        with open('/proc/self/maps', encoding='utf-8') as maps:
            paths = {line.split()[-1] for line in maps if 'libmpi' in line}
    except OSError:
        return []
    return sorted(path for path in paths if os.path.sep in path)


@functools.cache
def cuda_aware() -> bool:
    """Whether the MPI library accepts device (CUDA) buffers, detected, never assumed.

    Asks mpi4py's ``MPI.Query_cuda_support()`` where mpi4py provides it, then
    the ``MPIX_Query_cuda_support()`` extension of the loaded MPI library (Open
    MPI); False when neither answers.
    """
    MPI = get_mpi()
    query = getattr(MPI, 'Query_cuda_support', None)
    if query is not None:
        try:
            return bool(query())
        except (NotImplementedError, RuntimeError):
            return False
    for path in _loaded_mpi_libraries():
        try:
            function = ctypes.CDLL(path).MPIX_Query_cuda_support
        except (OSError, AttributeError):
            continue
        function.restype = ctypes.c_int
        return bool(function())
    return False
