"""``squared_error``: the element-wise squared difference of two arrays."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.loss import _argcheck
from catena.utils import force_array, type_check
from catena.variable import Variable


class SquaredError(FunctionNode):
    """``y = (x0 - x1) ** 2``, element-wise."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x0', 'x1'))
        _argcheck.expect_same(('x0', 'x1'), in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        diff = x0 - x1
        diff *= diff
        return force_array(diff),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x0, x1 = self.get_retained_inputs()
        gx = grad_outputs[0] * (x0 - x1) * 2.0
        return tuple(gx if i == 0 else -gx for i in indexes)


def squared_error(x0: Any, x1: Any) -> Variable:
    """Element-wise squared error, :math:`y_i = (x0_i - x1_i)^2`.

    Args:
        x0: A Variable or array of floating point type.
        x1: A Variable or array of the shape and dtype of ``x0``.

    Returns:
        Variable: The squared differences, of ``x0``'s shape.

    .. admonition:: Example

        >>> F.squared_error(np.array([1.0, -2.0]), np.array([3.0, 1.0])).array
        array([4., 9.])
    """
    return SquaredError().apply((x0, x1))[0]
