"""``hard_sigmoid``: a piecewise-linear approximation of the sigmoid."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation import _piecewise
from catena.utils import force_array, type_check
from catena.variable import Variable


class HardSigmoid(FunctionNode):
    """Hard sigmoid, :math:`y = \\mathrm{clip}(0.2 x + 0.5, 0, 1)`."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        cast = x.dtype.type
        y = force_array(xp.multiply(x, cast(0.2)))
        y += cast(0.5)
        xp.clip(y, cast(0), cast(1), out=y)
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x = self.get_retained_inputs()[0].array
        cast = x.dtype.type
        slope = _piecewise.indicator((x > cast(-2.5)) & (x < cast(2.5)), x.dtype)
        slope *= cast(0.2)
        return HardSigmoidGrad(slope).apply(grad_outputs)


class HardSigmoidGrad(_piecewise.PiecewiseLinearGrad):
    """The gradient of hard_sigmoid: ``gx = gy * 0.2`` where ``-2.5 < x < 2.5``, else 0."""


def hard_sigmoid(x: Any) -> Variable:
    """Element-wise hard sigmoid.

    .. math::

        y = \\begin{cases} 0 & (x < -2.5) \\\\ 0.2 x + 0.5 & (-2.5 \\le x \\le 2.5) \\\\
            1 & (x > 2.5) \\end{cases}

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: An array of the shape and dtype of ``x``.

    .. admonition:: Example

        >>> x = np.array([-3.0, -1.0, 0.0, 1.0, 3.0], dtype=np.float32)
        >>> F.hard_sigmoid(x).array
        array([0. , 0.3, 0.5, 0.7, 1. ], dtype=float32)
    """
    return HardSigmoid().apply((x,))[0]
