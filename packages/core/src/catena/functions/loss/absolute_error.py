"""``absolute_error``: the element-wise absolute difference of two arrays."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.loss import _argcheck
from catena.utils import force_array, type_check
from catena.variable import Variable


class AbsoluteError(FunctionNode):
    """``y = |x0 - x1|``, element-wise."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x0', 'x1'))
        _argcheck.expect_same(('x0', 'x1'), in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1 = inputs
        xp = backend.get_array_module(x0)
        diff = force_array(x0 - x1)
        self._sign = xp.sign(diff)
        return force_array(xp.abs(diff, out=diff)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gx = grad_outputs[0] * self._sign  # sign is piecewise constant: no second order
        return tuple(gx if i == 0 else -gx for i in indexes)


def absolute_error(x0: Any, x1: Any) -> Variable:
    """Element-wise absolute error, :math:`y_i = |x0_i - x1_i|`.

    Args:
        x0: A Variable or array of floating point type.
        x1: A Variable or array of the shape and dtype of ``x0``.

    Returns:
        Variable: The absolute differences, of ``x0``'s shape.

    .. admonition:: Example

        >>> F.absolute_error(np.array([1.0, -2.0]), np.array([3.0, 1.0])).array
        array([2., 3.])
    """
    return AbsoluteError().apply((x0, x1))[0]
