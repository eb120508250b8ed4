"""``expand_dims``: insert an axis of length one."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.reshape import reshape
from catena.utils import type_check
from catena.variable import Variable


class ExpandDims(FunctionNode):
    """Inserts an axis of length one at ``axis`` (a view)."""

    def __init__(self, axis: int) -> None:
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f'axis must be an int; got {axis!r}')
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        if self.axis >= 0:
            type_check.expect(x_type.ndim >= self.axis)
        else:
            type_check.expect(x_type.ndim >= -self.axis - 1)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return backend.get_array_module(x).expand_dims(x, self.axis),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return reshape(grad_outputs[0], self._in_shape),


def expand_dims(x: Any, axis: int) -> Variable:
    """Inserts an axis of length one into ``x`` without copying it.

    Args:
        x: A Variable or array.
        axis: The position of the new axis in the output, with
            ``-x.ndim - 1 <= axis <= x.ndim``.

    Returns:
        Variable: A variable with one more dimension.

    .. admonition:: Example

        >>> x = np.array([1, 2, 3], dtype=np.float32)
        >>> F.expand_dims(x, 0).shape
        (1, 3)
        >>> F.expand_dims(x, -1).shape
        (3, 1)
    """
    return ExpandDims(axis).apply((x,))[0]
