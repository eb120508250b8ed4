"""CuPy's memory pools as the allocators of catena's GPU arrays.

Allocating and freeing GPU memory directly (``cudaMalloc``/``cudaFree``)
synchronizes the host with the GPU, and a training step creates and drops
thousands of arrays; so Chainer allocated through CuPy's memory pool, and
page-locked host memory through CuPy's pinned memory pool.

How Chainer arranged it, and what catena does:

* Chainer v1 to v3 installed the pools on import of ``chainer.cuda``; since
  CuPy v4, CuPy installs its default pools itself on import (``cupy``'s
  ``__init__`` calls ``set_allocator`` and ``set_pinned_memory_allocator``),
  and Chainer v7's ``chainer.backends.cuda`` only re-exports them as
  ``memory_pool`` and ``pinned_memory_pool``.
* In both, an allocator that the program chose itself
  (``cupy.cuda.set_allocator(None)`` to disable pooling, RAPIDS' RMM, managed
  memory, or one installed by another library such as cuDF) stays in
  effect: Chainer's setting ran at import, before any user code.
* catena-cuda imports CuPy lazily, possibly after the program chose an
  allocator, so :func:`setup_memory_pools` never replaces one: when CuPy's
  default pool is the allocator it is kept, and any other allocator is left
  as it is and reported. CuPy cannot read back the pinned-memory allocator,
  so that one is always left as CuPy's import (or the program) set it.
"""

from __future__ import annotations

import dataclasses
import threading
import types
from typing import Any

_lock = threading.Lock()
_pools: MemoryPools | None = None


@dataclasses.dataclass(frozen=True)
class MemoryPools:
    """CuPy's default memory pools and the device allocator found in effect.

    Attributes:
        memory_pool: :func:`cupy.get_default_memory_pool`'s pool.
        pinned_memory_pool: :func:`cupy.get_default_pinned_memory_pool`'s pool.
        allocator: ``'pool'`` when CuPy allocated GPU memory from
            ``memory_pool`` at the first use; otherwise a description of the
            allocator the program had installed (``'unknown'`` when this CuPy
            cannot tell).
    """

    memory_pool: Any
    pinned_memory_pool: Any
    allocator: str

    @property
    def uses_pool(self) -> bool:
        """Whether GPU arrays were allocated from :attr:`memory_pool`."""
        return self.allocator == 'pool'

    def describe(self) -> str:
        """Returns one line for the runtime report."""
        if self.uses_pool:
            return 'CuPy allocator: the default memory pool (pinned memory: its pinned pool)'
        return (f'CuPy allocator: {self.allocator}, set by the program and kept '
                '(catena-cuda does not replace an allocator the program chose)')


def setup_memory_pools(cupy: types.ModuleType) -> MemoryPools:
    """Settles CuPy's memory pools as catena's allocators, once per process.

    The first call reads CuPy's default pools and the allocator in effect and
    keeps them; later calls return the same record without touching CuPy. No
    call replaces an allocator that the program installed (see the module
    docstring), and no call needs the GPU.

    Args:
        cupy: The :mod:`cupy` module.

    Returns:
        MemoryPools: The pools and a description of the allocator found.
    """
    global _pools
    pools = _pools
    if pools is not None:
        return pools
    with _lock:
        if _pools is None:
            memory_pool = cupy.get_default_memory_pool()
            pinned_memory_pool = cupy.get_default_pinned_memory_pool()
            _pools = MemoryPools(memory_pool, pinned_memory_pool,
                                 _allocator_in_effect(cupy, memory_pool))
        return _pools


def _allocator_in_effect(cupy: types.ModuleType, memory_pool: Any) -> str:
    get_allocator = getattr(cupy.cuda, 'get_allocator', None)
    if get_allocator is None:  # CuPy before v9
        return 'unknown'
    allocator = get_allocator()
    # A bound method of a Cython class compares equal when it binds the same
    # object to the same method; it is never the same object twice.
    if allocator == memory_pool.malloc:
        return 'pool'
    raw = getattr(getattr(cupy.cuda, 'memory', None), '_malloc', None)
    if allocator is None or (raw is not None and allocator == raw):
        return 'no pool (cupy.cuda.set_allocator(None): cudaMalloc for every array)'
    name = getattr(allocator, '__qualname__', None) or type(allocator).__name__
    owner = getattr(allocator, '__self__', None)
    if owner is not None and not isinstance(owner, types.ModuleType):
        return f'{type(owner).__name__}.{getattr(allocator, "__name__", name)}'
    module = getattr(allocator, '__module__', None)
    return f'{module}.{name}' if module else name


def _reset() -> None:
    """Forgets the recorded setup (tests only)."""
    global _pools
    with _lock:
        _pools = None
