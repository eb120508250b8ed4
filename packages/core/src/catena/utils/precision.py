"""Mixed-precision helpers for FunctionNode implementations (``catena.utils.precision``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy

__all__ = ['_fp16_mixed_precision_helper']


def _fp16_mixed_precision_helper(
        forward: Callable[[Any, tuple[Any, ...]], tuple[Any, ...]],
) -> Callable[[Any, tuple[Any, ...]], tuple[Any, ...]]:
    """Runs a ``forward`` method in float32 when some inputs are float16.

    Decorates ``forward(self, inputs)``. When an input is float16, every
    float16 input is cast to float32 before the call, and every float32
    output is cast back to float16 afterwards; other inputs and outputs (and
    None outputs) pass unchanged. Without float16 inputs the method runs on
    the inputs as they are. This keeps accuracy for computations that
    accumulate (sums, normalizations) without a float16 kernel.

    Args:
        forward: The method to wrap.

    Returns:
        The wrapped method.
    """
    @functools.wraps(forward)
    def wrapper(self: Any, in_data: tuple[Any, ...]) -> tuple[Any, ...]:
        if not any(_is_half(x) for x in in_data):
            return forward(self, in_data)
        in_data = tuple(x.astype(numpy.float32) if _is_half(x) else x for x in in_data)
        out_data = forward(self, in_data)
        return tuple(y.astype(numpy.float16, copy=False)
                     if y is not None and y.dtype == numpy.float32 else y for y in out_data)

    return wrapper


def _is_half(x: Any) -> bool:
    return x is not None and getattr(x, 'dtype', None) == numpy.float16
