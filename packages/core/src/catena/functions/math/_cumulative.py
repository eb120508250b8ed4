"""Differentiable helpers of cumsum, cumprod and prod: flip and shift along an axis."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.get_item import get_item
from catena.variable import Variable


def flip(x: Any, axis: int) -> Variable:
    """Reverses ``x`` along ``axis`` (a view)."""
    return get_item(x, (slice(None),) * (axis % x.ndim) + (slice(None, None, -1),))


class ShiftForward(FunctionNode):
    """``y[0] = fill``, ``y[i] = x[i - 1]`` along ``axis``; the last element drops."""

    def __init__(self, axis: int, fill: float) -> None:
        self.axis = axis
        self.fill = fill

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        head = (slice(None),) * self.axis
        y = xp.empty_like(x)
        y[head + (slice(0, 1),)] = self.fill
        y[head + (slice(1, None),)] = x[head + (slice(None, -1),)]
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return ShiftBackward(self.axis).apply(grad_outputs)


class ShiftBackward(FunctionNode):
    """The adjoint of ShiftForward: ``y[i] = x[i + 1]``, ``y[-1] = 0`` along ``axis``."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        head = (slice(None),) * self.axis
        y = xp.empty_like(x)
        y[head + (slice(-1, None),)] = 0
        y[head + (slice(None, -1),)] = x[head + (slice(1, None),)]
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return ShiftForward(self.axis, 0).apply(grad_outputs)


def shift_forward(x: Any, axis: int, fill: float) -> Variable:
    """Shifts ``x`` one place forward along ``axis``, ``fill`` entering at the front."""
    return ShiftForward(axis % x.ndim, fill).apply((x,))[0]
