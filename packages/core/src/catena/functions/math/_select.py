"""Gradient routing by a fixed boolean mask, shared by ``maximum`` and ``minimum``.

``SplitByMask(cond)`` maps ``g`` to ``(where(cond, g, 0), where(cond, 0, g))``;
``MergeByMask(cond)`` maps ``(a, b)`` to ``where(cond, a, b)``. Each is the
other's transpose, so each one's backward is the other. ``split_gradient``
routes the gradient of a broadcasting binary selection back to its inputs.
"""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.math.sum_to import sum_to
from catena.utils import force_array
from catena.variable import Variable


class SplitByMask(FunctionNode):
    """Sends ``g`` to the first output where ``cond`` holds, else to the second."""

    def __init__(self, cond: Any) -> None:
        self.cond = cond

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        g, = inputs
        xp = backend.get_array_module(g)
        zero = g.dtype.type(0)
        return force_array(xp.where(self.cond, g, zero)), force_array(xp.where(self.cond, zero, g))

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        first, second = grad_outputs
        if first is None and second is None:
            return None,
        if first is None or second is None:
            given = second if first is None else first
            zeros = Variable(backend.get_array_module(given.array).zeros_like(given.array),
                             requires_grad=False)
            first, second = (zeros, second) if first is None else (first, zeros)
        return MergeByMask(self.cond).apply((first, second))


class MergeByMask(FunctionNode):
    """``where(cond, a, b)`` for a fixed mask ``cond``."""

    def __init__(self, cond: Any) -> None:
        self.cond = cond

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = inputs
        return force_array(backend.get_array_module(a).where(self.cond, a, b)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return SplitByMask(self.cond).apply(grad_outputs)


def split_gradient(split: SplitByMask, gy: Variable, x1_shape: tuple[int, ...],
                   x2_shape: tuple[int, ...]) -> tuple[Variable, Variable]:
    """Sends ``gy`` through ``split`` to ``x1`` and ``x2``.

    Each part is summed down to its input's shape where that input was
    broadcast.
    """
    g1, g2 = split.apply((gy,))
    if g1.shape != x1_shape:
        g1 = sum_to(g1, x1_shape)
    if g2.shape != x2_shape:
        g2 = sum_to(g2, x2_shape)
    return g1, g2
