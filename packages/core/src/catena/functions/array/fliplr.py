"""``fliplr``: reverse the columns (axis 1) of an array."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


class FlipLR(FunctionNode):
    """Reverses an array along axis 1 (a view)."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('a',))
        type_check.expect(in_types[0].ndim >= 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, = inputs
        return backend.get_array_module(a).fliplr(a),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return fliplr(grad_outputs[0]),


def fliplr(a: Any) -> Variable:
    """Flips ``a`` in the left/right direction (reverses axis 1).

    Args:
        a: A Variable or array with at least two dimensions.

    Returns:
        Variable: The flipped variable.

    .. admonition:: Example

        >>> a = np.array([[1, 2], [3, 4]], dtype=np.float32)
        >>> F.fliplr(a).array
        array([[2., 1.],
               [4., 3.]], dtype=float32)
    """
    return FlipLR().apply((a,))[0]
