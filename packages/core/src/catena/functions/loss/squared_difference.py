"""``squared_difference``: the element-wise squared difference of two arrays."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.loss import _argcheck
from catena.utils import force_array, type_check
from catena.variable import Variable


class SquaredDifference(FunctionNode):
    """``y = (x1 - x2) ** 2``, element-wise."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x1', 'x2'))
        _argcheck.expect_same(('x1', 'x2'), in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        diff = x1 - x2
        diff *= diff
        return force_array(diff),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x1, x2 = self.get_retained_inputs()
        gx = grad_outputs[0] * (x1 - x2) * 2.0
        return tuple(gx if i == 0 else -gx for i in indexes)


def squared_difference(x1: Any, x2: Any) -> Variable:
    """Element-wise squared difference, :math:`y_i = (x1_i - x2_i)^2`.

    Args:
        x1: A Variable or array of floating point type.
        x2: A Variable or array of the shape and dtype of ``x1``.

    Returns:
        Variable: The squared differences, of ``x1``'s shape.

    .. admonition:: Example

        >>> F.squared_difference(np.array([1.0, 4.0]), np.array([3.0, 1.0])).array
        array([4., 9.])
    """
    return SquaredDifference().apply((x1, x2))[0]
