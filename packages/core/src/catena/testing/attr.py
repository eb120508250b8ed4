"""Test annotations (``catena.testing.attr``): pytest markers, no-ops without pytest.

``gpu``, ``multi_gpu(n)``, ``cudnn``, ``ideep``, ``chainerx`` and ``slow`` mark tests so
that ``-m 'not slow'`` and friends select them. catena's pytest plugin skips
tests marked ``gpu`` / ``multi_gpu(n)`` when ``CATENA_TEST_GPU_LIMIT`` (or
Chainer's ``CHAINER_TEST_GPU_LIMIT``) is lower than the GPUs they need.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _identity(obj: Any) -> Any:
    return obj


def mark(name: str, *args: Any) -> Callable[[Any], Any]:
    """Returns the pytest marker ``name`` (with ``args``), or a no-op without pytest."""
    try:
        import pytest
    except ImportError:  # pragma: no cover - catena does not depend on pytest
        return _identity
    decorator = getattr(pytest.mark, name)
    return decorator(*args) if args else decorator


_MARKERS = {
    'gpu': 'Marks a test that needs one CUDA GPU.',
    'cudnn': 'Marks a test that needs cuDNN.',
    'ideep': 'Marks a test that needs catena-intel64 (oneDNN).',
    'chainerx': 'Marks a test that needs ChainerX (kept for Chainer\'s tests).',
    'slow': 'Marks a test that takes more than a few seconds.',
}


def __getattr__(name: str) -> Any:
    # The markers are built on first use, so that importing catena.testing
    # (which catena.gradient_check does) does not import pytest.
    if name in _MARKERS:
        value = mark(name)
        globals()[name] = value
        return value
    raise AttributeError(f'module catena.testing.attr has no attribute {name!r}')


def _require_gpu() -> None:
    """Skips the running test unless a CUDA GPU is usable (for tests marked ``gpu``)."""
    import unittest

    from catena.backends import cuda

    if not cuda.available:
        raise unittest.SkipTest('needs a CUDA GPU (catena-cuda and CuPy)')


def multi_gpu(gpu_num: int) -> Callable[[Any], Any]:
    """Marks a test that needs ``gpu_num`` GPUs.

    Args:
        gpu_num: The number of GPUs the test uses.
    """
    if not isinstance(gpu_num, int) or gpu_num < 1:
        raise ValueError(f'gpu_num must be a positive int; got {gpu_num!r}')
    return mark('gpu', gpu_num)


# gpu, cudnn, ideep, chainerx and slow come from __getattr__ above.
__all__ = ['chainerx', 'cudnn', 'gpu', 'ideep', 'mark', 'multi_gpu', 'slow']  # noqa: F822
