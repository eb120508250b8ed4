"""NCCL through CuPy (``cupy.cuda.nccl``), under ChainerMN's module name.

Without CuPy's NCCL binding, :func:`is_available` is False and the other
functions raise ``RuntimeError``. GPU communicators come from plugins
(``create_communicator('pure_nccl')``).
"""

from __future__ import annotations

import importlib
from typing import Any


def _binding() -> Any:
    try:
        return importlib.import_module('cupy.cuda.nccl')
    except Exception:  # noqa: BLE001 - CuPy missing, or present without NCCL or a GPU
        return None


def is_available() -> bool:
    """Whether CuPy's NCCL binding can be imported."""
    return _binding() is not None


def _required() -> Any:
    binding = _binding()
    if binding is None:
        raise RuntimeError('NCCL is not available: it needs CuPy with its NCCL binding '
                           '(cupy.cuda.nccl) and an NVIDIA GPU')
    return binding


def get_build_version() -> int:
    """The NCCL version CuPy was built with (``2xxyy`` for NCCL 2.x.y).

    Raises:
        RuntimeError: Without CuPy's NCCL binding.
    """
    return int(_required().get_build_version())


def get_version() -> int:
    """The version of the NCCL library loaded at run time.

    Raises:
        RuntimeError: Without CuPy's NCCL binding.
    """
    return int(_required().get_version())


def get_unique_id() -> Any:
    """A new NCCL unique id (to create a communicator).

    Raises:
        RuntimeError: Without CuPy's NCCL binding.
    """
    return _required().get_unique_id()


def __getattr__(name: str) -> Any:
    """Other names (``NcclCommunicator``, ``NCCL_FLOAT32``, ...) come from CuPy's binding.

    Without it they raise ``AttributeError`` (saying why), so that tools that
    probe a module's attributes keep working.
    """
    binding = None if name.startswith('__') else _binding()
    if binding is None:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r} (NCCL is not '
                             'available: it needs CuPy with its NCCL binding and an NVIDIA '
                             'GPU)')
    return getattr(binding, name)
