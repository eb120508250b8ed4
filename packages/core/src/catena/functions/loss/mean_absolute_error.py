"""``mean_absolute_error``: the mean of the absolute differences of two arrays."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.loss import _argcheck
from catena.utils import force_array, type_check
from catena.variable import Variable


class MeanAbsoluteError(FunctionNode):
    """``y = mean(|x0 - x1|)``."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x0', 'x1'))
        _argcheck.expect_same(('x0', 'x1'), in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1 = inputs
        xp = backend.get_array_module(x0)
        diff = force_array(x0 - x1)
        self._sign = xp.sign(diff)
        xp.abs(diff, out=diff)
        # float16 sums in float32: no overflow
        total = diff.sum(dtype=numpy.float32) if diff.dtype.char == 'e' else diff.sum()
        return xp.asarray(total / total.dtype.type(max(diff.size, 1)), dtype=diff.dtype),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        coeff = 1.0 / max(self._sign.size, 1)
        gx = grad_outputs[0] * coeff * self._sign  # piecewise constant: no second order
        return tuple(gx if i == 0 else -gx for i in indexes)


def mean_absolute_error(x0: Any, x1: Any) -> Variable:
    """Mean absolute error, :math:`\\frac{1}{N} \\sum_i |x0_i - x1_i|` over all elements.

    Args:
        x0: A Variable or array of floating point type.
        x1: A Variable or array of the shape and dtype of ``x0``.

    Returns:
        Variable: The mean absolute error, a scalar.

    .. admonition:: Example

        >>> F.mean_absolute_error(np.array([1.0, -2.0]), np.array([3.0, 1.0])).array
        array(2.5)
    """
    return MeanAbsoluteError().apply((x0, x1))[0]
