"""The optional compiled kernels (``catena._cupdate``, ``catena._cnorm``), loaded once.

They speed up NumPy code on CPU and compute the same values; callers keep
the NumPy code as the fallback. ``CATENA_ENGINE=python`` turns them off
together with the compiled engine, so that one switch runs pure Python.
"""

from __future__ import annotations

import importlib
from typing import Any

from catena import _engine


def load(name: str) -> Any:
    """Returns the module ``catena.<name>``, or None when it is missing or turned off."""
    if _engine.requested() == 'python':
        return None
    try:
        return importlib.import_module(f'catena.{name}')
    except ImportError:
        return None
