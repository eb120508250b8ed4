"""``sum_to``: sum over broadcast axes down to a given shape."""

from __future__ import annotations

from typing import Any

from catena import utils
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.array import broadcast  # a module: the two import each other
from catena.utils import type_check
from catena.variable import Variable


class SumTo(FunctionNode):
    """Sums an array over broadcast axes so that it takes a smaller shape."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self._shape = tuple(shape)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        ndim = len(self._shape)
        type_check.expect(x_type.ndim >= ndim)
        lead = type_check.eval(x_type.ndim) - ndim
        for i, dim in enumerate(self._shape):
            if dim != 1:
                type_check.expect(x_type.shape[lead + i] == dim)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return utils.sum_to(x, self._shape),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return broadcast.broadcast_to(grad_outputs[0], self._in_shape),


def sum_to(x: Any, shape: tuple[int, ...]) -> Variable:
    """Sums ``x`` over the axes along which ``shape`` was broadcast.

    Args:
        x: A Variable or array whose shape is ``shape`` broadcast to a larger one.
        shape: The target shape.

    Returns:
        Variable: A variable of ``shape``; ``x`` itself (as a Variable) when it
        already has that shape.
    """
    if _arguments.has_shape('sum_to', x, shape):
        return x if isinstance(x, Variable) else Variable(x, requires_grad=False)
    return SumTo(shape).apply((x,))[0]
