"""catena's Intel CPU backend: Chainer's ``backends.intel64`` surface on oneDNN.

Once this package is installed, ``catena.backends.intel64`` serves the names
below. Chainer's iDeep answers are given for oneDNN: "iDeep is available"
means "oneDNN's library loaded". Importing this package does not load oneDNN;
the first question that needs it does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from catena._install import install_hint
from catena_intel64 import _dnnl
from catena_intel64.device import Intel64Device
from catena_intel64.report import KernelReport

__version__ = '0.1.0'

_INSTALL = install_hint('catena-intel64')


def is_ideep_available() -> bool:
    """Whether oneDNN (catena's replacement for iDeep) can be used here.

    Returns:
        bool: True when ``libdnnl.so.3`` and its OpenMP runtime load.
    """
    return _dnnl.load_error() is None


def check_ideep_available() -> None:
    """Raises an error unless oneDNN can be used here.

    Raises:
        RuntimeError: The message says why oneDNN could not be loaded and
            what to install.
    """
    reason = _dnnl.load_error()
    if reason is not None:
        raise RuntimeError(f'Intel CPU acceleration (oneDNN, which replaces iDeep) is not '
                           f'available: {reason}')


def should_use_ideep(level: str) -> bool:
    """Whether oneDNN kernels should be used, from ``catena.config.use_ideep``.

    Args:
        level: ``'==always'`` (only when ``use_ideep`` is ``'always'``) or
            ``'>=auto'`` (when it is ``'always'`` or ``'auto'``).

    Returns:
        bool: True when oneDNN is available and the configuration allows it
        at ``level``.

    Raises:
        ValueError: ``level`` or ``catena.config.use_ideep`` has a value other
            than those above.
    """
    if level not in ('==always', '>=auto'):
        raise ValueError(f"level must be '==always' or '>=auto', got {level!r}")
    from catena.configuration import config

    value = config.use_ideep
    if value not in ('always', 'auto', 'never'):
        raise ValueError("catena.config.use_ideep must be 'always', 'auto' or 'never', "
                         f'got {value!r}')
    if not is_ideep_available():
        return False
    if level == '==always':
        return bool(value == 'always')
    return bool(value != 'never')


def inputs_all_ready(inputs: Sequence[Any], supported_ndim: Sequence[int] = (2, 4)) -> bool:
    """Whether every input can go to a oneDNN kernel as it is.

    Args:
        inputs: Arrays or Variables (a Variable counts by its array).
        supported_ndim: The numbers of dimensions the kernel accepts.

    Returns:
        bool: True when oneDNN is available and every input is a NumPy array
        whose ``ndim`` is in ``supported_ndim``.
    """
    if not is_ideep_available():
        return False
    from catena.variable import Variable

    for value in inputs:
        if isinstance(value, Variable):
            value = value.array
        if not isinstance(value, numpy.ndarray) or value.ndim not in supported_ndim:
            return False
    return True


def dnnl_version() -> _dnnl.DnnlVersion:
    """Returns the version of the loaded oneDNN library.

    Returns:
        DnnlVersion: ``major``, ``minor``, ``patch``, ``hash``,
        ``cpu_runtime`` and ``gpu_runtime``; ``str()`` gives ``'3.2.0'``.

    Raises:
        RuntimeError: oneDNN cannot be loaded.
    """
    return _dnnl.dnnl_version()


__all__ = [
    'Intel64Device', 'KernelReport', 'check_ideep_available', 'dnnl_version', 'inputs_all_ready',
    'is_ideep_available', 'should_use_ideep',
]
