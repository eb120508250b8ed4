"""``reshape``: give an array a new shape without changing its data."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.utils import type_check
from catena.variable import Variable


def _known_size(shape: tuple[int, ...]) -> int:
    size = 1
    for dim in shape:
        if dim != -1:
            size *= dim
    return size


class Reshape(FunctionNode):
    """Reshapes an array; one dimension may be -1 (inferred)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = tuple(shape)
        if sum(1 for dim in self.shape if dim == -1) > 1:
            raise ValueError(f'shape may contain -1 at most once; got {self.shape}')
        if any(dim < -1 for dim in self.shape):
            raise ValueError(f'shape must not contain negative sizes but -1; got {self.shape}')

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        known = _known_size(self.shape)
        if -1 in self.shape:
            if known != 0:
                type_check.expect(x_type.size % known == 0)
        else:
            type_check.expect(x_type.size == known)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return x.reshape(self.shape),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return reshape(grad_outputs[0], self._in_shape),


def reshape(x: Any, shape: Any) -> Variable:
    """Reshapes ``x`` to ``shape`` (one dimension may be -1).

    Args:
        x: A Variable or array.
        shape: The new shape.

    Returns:
        Variable: The reshaped variable (``x`` itself when the shape is equal).
    """
    if isinstance(shape, int):
        shape = (shape,)
    try:
        shape = tuple(shape)
    except TypeError:
        raise _arguments.wrong_kind('reshape', 'shape', 'an int or a sequence of ints',
                                    shape) from None
    try:
        same = x.shape == shape
    except AttributeError:
        _arguments.blame('reshape', x=x)
        raise
    if same:
        return x if isinstance(x, Variable) else Variable(x, requires_grad=False)
    return Reshape(shape).apply((x,))[0]
