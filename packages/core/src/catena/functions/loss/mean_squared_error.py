"""``mean_squared_error``: the mean of the squared differences of two arrays."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.loss import _argcheck
from catena.utils import type_check
from catena.variable import Variable


class MeanSquaredError(FunctionNode):
    """``y = mean((x0 - x1) ** 2)``."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x0', 'x1'))
        _argcheck.expect_same(('x0', 'x1'), in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        xp = backend.get_array_module(x0)
        diff = (x0 - x1).ravel()
        dtype = diff.dtype
        if dtype.char == 'e':  # float16 squares and sums in float32: no overflow
            diff = diff.astype(numpy.float32)
        total = diff.dot(diff) / diff.dtype.type(max(diff.size, 1))
        return xp.asarray(total, dtype=dtype),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x0, x1 = self.get_retained_inputs()
        gx = grad_outputs[0] * (2.0 / max(x0.size, 1)) * (x0 - x1)
        return tuple(gx if i == 0 else -gx for i in indexes)


def mean_squared_error(x0: Any, x1: Any) -> Variable:
    """Mean squared error, :math:`\\frac{1}{N} \\sum_i (x0_i - x1_i)^2` over all elements.

    Args:
        x0: A Variable or array of floating point type.
        x1: A Variable or array of the shape and dtype of ``x0``.

    Returns:
        Variable: The mean squared error, a scalar.

    .. admonition:: Example

        >>> F.mean_squared_error(np.array([1.0, -2.0]), np.array([3.0, 1.0])).array
        array(6.5)
    """
    return MeanSquaredError().apply((x0, x1))[0]
