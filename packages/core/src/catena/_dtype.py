"""The default dtype and the ``mixed16`` mode."""

from __future__ import annotations

from typing import Any

import numpy


class _Mixed16:
    """The ``mixed16`` dtype mode: float16 parameters with float32 updates."""

    dtype = numpy.dtype(numpy.float16)

    def __repr__(self) -> str:
        return 'mixed16'

    def __reduce__(self) -> str:
        return 'mixed16'


mixed16 = _Mixed16()


def get_dtype(dtype: Any = None, map_mixed16: Any = None) -> numpy.dtype:
    """Resolves a dtype, defaulting to ``catena.config.dtype``.

    Args:
        dtype: A dtype, ``mixed16`` or None (use the configured default).
        map_mixed16: The dtype that ``mixed16`` resolves to (float16 when None).

    Returns:
        numpy.dtype: The resolved dtype.
    """
    if dtype is None:
        from catena.configuration import config

        dtype = config.dtype
    if dtype is mixed16:
        return numpy.dtype(numpy.float16 if map_mixed16 is None else map_mixed16)
    return numpy.dtype(dtype)


def get_compute_mode() -> Any:
    """Returns ``catena.config.compute_mode``."""
    from catena.configuration import config

    return config.compute_mode
