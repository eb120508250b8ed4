"""What the linear-algebra functions share: the type check and a float16 detour."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from catena.utils import type_check


def check_square(in_types: Any, ndim: int) -> None:
    """Checks for one floating ``a`` of ``ndim`` dimensions whose last two are equal."""
    type_check._argname(in_types, ('a',))
    a_type, = in_types
    type_check.expect(a_type.dtype.kind == 'f', a_type.ndim == ndim)
    type_check.expect(a_type.shape[-1] == a_type.shape[-2])


def apply_linalg(function: Callable[[Any], Any], a: Any) -> Any:
    """Applies an ``xp.linalg`` function; float16 (which LAPACK lacks) goes through float32."""
    if a.dtype == numpy.float16:
        return function(a.astype(numpy.float32)).astype(numpy.float16)
    return function(a)
