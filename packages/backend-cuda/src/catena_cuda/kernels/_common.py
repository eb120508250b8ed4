"""What every catena-cuda kernel shares: the call counter."""

from __future__ import annotations

import collections

calls: collections.Counter[str] = collections.Counter()
"""How many times each kernel ran (not declined), by kernel name.

Tests read it to check that a kernel ran, or that ``use_cudnn='never'``
(``use_cupy_kernels='never'``) kept it from running.
"""


def count(name: str) -> None:
    """Records one run of the kernel ``name``."""
    calls[name] += 1
