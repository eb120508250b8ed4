"""``minimum``: the element-wise minimum of two variables."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.math._select import SplitByMask, split_gradient
from catena.utils import force_array, type_check
from catena.variable import Variable


class Minimum(FunctionNode):
    """Element-wise minimum of two arrays of one dtype and broadcastable shapes."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x1', 'x2'))
        x1_type, x2_type = in_types
        type_check.expect(
            x1_type.dtype.kind == 'f',
            x2_type.dtype == x1_type.dtype,
        )
        type_check.expect_broadcast_shapes(x1_type.shape, x2_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        return force_array(backend.get_array_module(x1).minimum(x1, x2)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x1, x2 = self.get_retained_inputs()
        # Ties send the gradient to x1.
        return split_gradient(MinimumGrad(x1.array <= x2.array), grad_outputs[0], x1.shape,
                              x2.shape)


class MinimumGrad(SplitByMask):
    """Sends the gradient to x1 where it was selected (``cond``), else to x2."""


def minimum(x1: Any, x2: Any) -> Variable:
    """Element-wise minimum of two variables, :math:`y_i = \\min(x1_i, x2_i)`.

    The gradient goes to the input whose element was selected (to ``x1``
    where the two are equal).

    Args:
        x1: A Variable or array of floating point type.
        x2: A Variable or array of the dtype of ``x1``, of a shape that
            broadcasts with it (the result has the broadcast shape).

    Returns:
        Variable: The smallest of the two at each position.

    .. admonition:: Example

        >>> F.minimum(np.array([1.0, 5.0], dtype=np.float32),
        ...         np.array([3.0, 2.0], dtype=np.float32)).array
        array([1., 2.], dtype=float32)
    """
    return Minimum().apply((x1, x2))[0]
