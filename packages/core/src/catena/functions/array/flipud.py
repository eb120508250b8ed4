"""``flipud``: reverse the rows (axis 0) of an array."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


class FlipUD(FunctionNode):
    """Reverses an array along axis 0 (a view)."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('a',))
        type_check.expect(in_types[0].ndim >= 1)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, = inputs
        return backend.get_array_module(a).flipud(a),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return flipud(grad_outputs[0]),


def flipud(a: Any) -> Variable:
    """Flips ``a`` in the up/down direction (reverses axis 0).

    Args:
        a: A Variable or array with at least one dimension.

    Returns:
        Variable: The flipped variable.

    .. admonition:: Example

        >>> a = np.array([[1, 2], [3, 4]], dtype=np.float32)
        >>> F.flipud(a).array
        array([[3., 4.],
               [1., 2.]], dtype=float32)
    """
    return FlipUD().apply((a,))[0]
