"""Private helpers of the activations with a parameter shared over the batch (prelu, swish).

The parameter ``W`` has shape ``x.shape[1:1 + W.ndim]``: it is applied as if
reshaped to ``(1,) + W.shape + (1,) * (x.ndim - 1 - W.ndim)``.
"""

from __future__ import annotations

from typing import Any

from catena.functions.array.reshape import reshape
from catena.functions.math.sum import sum as _sum
from catena.utils import type_check


def expect_leading_shape(x_type: Any, w_type: Any) -> None:
    """Expects a float ``x`` and a ``W`` of its dtype with ``W.shape == x.shape[1:1 + W.ndim]``."""
    type_check.expect(
        x_type.dtype.kind == 'f',
        w_type.dtype == x_type.dtype,
        x_type.ndim >= w_type.ndim + 1,
    )
    w_ndim = type_check.eval(w_type.ndim)
    type_check.expect(x_type.shape[1:1 + w_ndim] == w_type.shape)


def broadcast_shape(x_ndim: int, w_shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that ``W`` takes to broadcast against ``x``."""
    return (1,) + tuple(w_shape) + (1,) * (x_ndim - 1 - len(w_shape))


def reduce_to_parameter(g: Any, w_shape: tuple[int, ...]) -> Any:
    """Sums a gradient of ``x``'s shape over the axes ``W`` is broadcast along (differentiable)."""
    axes = (0,) + tuple(range(1 + len(w_shape), g.ndim))
    return reshape(_sum(g, axis=axes), w_shape)
