"""The CPU memory pool: NumPy's data allocator keeps freed large buffers for reuse.

A training step frees and allocates the same large arrays each iteration
(weight gradients, activations). The C library hands such blocks back to the
kernel and maps them again, which costs a page fault per 4 KiB on every
step. When catena is imported, :mod:`catena._cpool` becomes NumPy's data
allocator (NEP 49) in the importing thread's context: a freed buffer of at
least 128 KiB waits in a table of at most 128 blocks and serves the next
request that it fits with at most 1/8 to spare; a block leaves once four
requests that it could not serve have come (a training step asks again for
what it freed, other leftovers would only add to the peak). Smaller buffers
go straight to ``malloc``.

``CATENA_CPU_MEMORY_POOL`` sets the most memory the pool keeps, in MiB
(default 256; ``0`` leaves NumPy's allocator in place). The oldest block
leaves first, and a block larger than half the limit is never kept.
``python -m catena info`` reports the pool.

Arrays keep the allocator that made them, so those made before the import,
or in other threads, are unaffected and free as before.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

VARIABLE = 'CATENA_CPU_MEMORY_POOL'
DEFAULT_MIB = 256

reason = 'not installed yet'
"""Why the pool is or is not in use, for ``python -m catena info``."""

_module: Any = None


def requested_bytes() -> int:
    """The limit that ``CATENA_CPU_MEMORY_POOL`` asks for, in bytes.

    Raises:
        ValueError: It holds something other than a non-negative whole number of MiB.
    """
    text = os.environ.get(VARIABLE, '').strip()
    if not text:
        return DEFAULT_MIB << 20
    try:
        mib = int(text)
    except ValueError:
        mib = -1
    if mib < 0:
        raise ValueError(f'{VARIABLE} must be a whole number of MiB (0 turns the pool off); '
                         f'got {os.environ[VARIABLE]!r}')
    return mib << 20


def install() -> None:
    """Makes the pool NumPy's data allocator in the current context, as the environment asks.

    Called once, when catena is imported. Without the compiled module, or
    with a limit of 0, NumPy's allocator stays and :data:`reason` says why.
    """
    global _module, reason
    limit = requested_bytes()
    if limit == 0:
        reason = f'off ({VARIABLE}=0)'
        return
    try:
        module = importlib.import_module('catena._cpool')
    except ImportError as error:
        reason = f'off (the compiled pool cannot be used: {error})'
        return
    module.set_limit(limit)
    module.install()
    if hasattr(os, 'register_at_fork'):
        os.register_at_fork(after_in_child=module.after_fork)
    _module = module
    reason = f'keeps up to {limit >> 20} MiB of freed buffers of 128 KiB and more'


def in_use() -> bool:
    """Whether the pool was installed."""
    return _module is not None


_STATS = ('held_bytes', 'held_blocks', 'limit_bytes', 'hits', 'misses', 'min_pooled_bytes',
          'stale_after')


def stats() -> dict[str, int]:
    """The pool's counters and constants.

    ``held_bytes``, ``held_blocks``, ``limit_bytes``, ``hits`` and
    ``misses`` (requests of pooled size that a held block served, or not),
    ``min_pooled_bytes`` (smaller buffers go to ``malloc``) and
    ``stale_after`` (the misses a held block waits through). All zero when
    the pool is not in use.
    """
    if _module is None:
        return dict.fromkeys(_STATS, 0)
    counters: dict[str, int] = _module.stats()
    return counters


def set_limit(limit_bytes: int) -> None:
    """Sets the most bytes the pool keeps, freeing the oldest blocks beyond it.

    Args:
        limit_bytes: The new limit, a non-negative int (0 keeps nothing).

    Raises:
        ValueError: ``limit_bytes`` is negative or not an int.
    """
    if isinstance(limit_bytes, bool) or not isinstance(limit_bytes, int) or limit_bytes < 0:
        raise ValueError(f'limit_bytes must be a non-negative int; got {limit_bytes!r}')
    if _module is not None:
        _module.set_limit(limit_bytes)


def free_all_blocks() -> int:
    """Frees every buffer the pool holds and returns how many bytes that was."""
    if _module is None:
        return 0
    released: int = _module.release()
    return released


def description() -> str:
    """One line for ``python -m catena info``."""
    if _module is None:
        return reason
    counters = stats()
    return (f'{reason}; holds {counters["held_bytes"] >> 20} MiB in '
            f'{counters["held_blocks"]} blocks')
