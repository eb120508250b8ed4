"""What every oneDNN kernel shares: eligibility checks, the compute mode, what ran."""

from __future__ import annotations

from typing import Any

import numpy

from catena.configuration import config
from catena_intel64 import _primitive

FLOAT32 = numpy.dtype(numpy.float32)

FPMATH_MODES = ('strict', 'bf16')


def all_float32(*arrays: Any) -> bool:
    """Whether every array is a float32 NumPy array (None entries are skipped)."""
    for array in arrays:
        if array is not None and array.dtype != FLOAT32:
            return False
    return True


def contiguous(array: numpy.ndarray) -> numpy.ndarray:
    """``array`` itself when C-contiguous, else a C-contiguous copy."""
    if array.flags.c_contiguous:
        return array
    return numpy.ascontiguousarray(array)


def fpmath_bf16() -> bool:
    """Whether ``catena.config.ideep_fpmath_mode`` asks for bfloat16 compute.

    Raises:
        ValueError: The key holds neither ``'strict'`` nor ``'bf16'``.
    """
    mode = getattr(config, 'ideep_fpmath_mode', 'strict')
    if mode not in FPMATH_MODES:
        raise ValueError("catena.config.ideep_fpmath_mode must be 'strict' or 'bf16', "
                         f'got {mode!r}')
    return bool(mode == 'bf16')


def compute_dtype(bf16: bool) -> numpy.dtype | str:
    """The data type convolutions and linear layers read: bfloat16 in bf16 mode, else float32.

    In bf16 mode oneDNN reads bfloat16 copies of the inputs and weights (the
    conversion happens in the reorder to its preferred layout) and
    accumulates in float32; results and gradients stay float32 arrays.
    """
    return _primitive.BFLOAT16 if bf16 else FLOAT32


def mark(node: Any, operation: _primitive.Operation) -> None:
    """Records on ``node`` which oneDNN implementation computed it.

    :class:`catena_intel64.KernelReport` and debugging read
    ``node.implementation``; a node without it ran catena's generic code.
    """
    node.implementation = f'oneDNN {operation.name} ({operation.implementation})'
