"""Private helpers of the piecewise activations (relu and its relatives).

They avoid masked selection (``where``, ``copyto(where=)``, boolean
indexing): on the CPU those branch per element and, with signs that look
random, cost tens of times more than arithmetic. ``clip`` and ``maximum``
of two arrays, on the other hand, are vectorized, and so is a multiplication
by a 0/1 array of the input's dtype.
"""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import force_array


def positive_part(xp: Any, x: Any) -> Any:
    """Returns ``max(x, 0)`` as a fresh array (NaN stays NaN)."""
    cast = x.dtype.type
    return force_array(xp.clip(x, cast(0), cast('inf')))


def negative_part(xp: Any, x: Any) -> Any:
    """Returns ``min(x, 0)`` as a fresh array (NaN stays NaN)."""
    cast = x.dtype.type
    return force_array(xp.clip(x, cast('-inf'), cast(0)))


def indicator(condition: Any, dtype: Any) -> Any:
    """Returns a boolean array as an array of ones and zeros of ``dtype``."""
    return force_array(condition.astype(dtype))


class PiecewiseLinearGrad(FunctionNode):
    """``gx = gy * coefficient``, for a constant array ``coefficient`` of gy's dtype.

    The coefficient (a 0/1 mask or per-element slopes) comes from the forward
    pass, so the node is linear in ``gy`` and its own backward is the same
    node again: double (and higher) backprop works. The subclasses name the
    function the gradient belongs to.
    """

    def __init__(self, coefficient: Any) -> None:
        self.coefficient = coefficient

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        return force_array(xp.multiply(gy, self.coefficient)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return type(self)(self.coefficient).apply(grad_outputs)
