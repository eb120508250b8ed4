"""``elu``: the exponential linear unit."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation import _piecewise, _scalar
from catena.utils import type_check
from catena.variable import Variable


class ELU(FunctionNode):
    """Exponential linear unit: ``x`` for ``x >= 0``, else ``alpha * (exp(x) - 1)``."""

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = _scalar.real(alpha, 'alpha', 'elu')

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        y = _piecewise.negative_part(xp, x)
        positive = _piecewise.positive_part(xp, x)
        xp.expm1(y, out=y)
        y *= x.dtype.type(self.alpha)
        y += positive
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return ELUGrad(self.alpha).apply((x,))[0] * grad_outputs[0],


class ELUGrad(FunctionNode):
    """The derivative of elu: ``1`` for ``x >= 0``, else ``alpha * exp(x)``."""

    def __init__(self, alpha: float) -> None:
        self.alpha = alpha

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        xp = backend.get_array_module(x)
        cast = x.dtype.type
        # alpha * exp(x) where x < 0; 1 where x >= 0, where exp(min(x, 0)) is 1
        dydx = _piecewise.negative_part(xp, x)
        xp.exp(dydx, out=dydx)
        dydx *= cast(self.alpha)
        if self.alpha != 1:
            dydx += _piecewise.indicator(x >= 0, x.dtype) * cast(1 - self.alpha)
        return dydx,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        dydx, = self.get_retained_outputs()
        # Where x < 0 the derivative is its own derivative; elsewhere it is constant.
        return grad_outputs[0] * dydx * (x.array < 0),


def elu(x: Any, alpha: float = 1.0) -> Variable:
    """Exponential linear unit, element-wise.

    .. math::

        y = \\begin{cases} x & (x \\ge 0) \\\\ \\alpha (\\exp(x) - 1) & (x < 0) \\end{cases}

    Args:
        x: A Variable or array of floating point type.
        alpha: The scale of the negative part.

    Returns:
        Variable: An array of the shape and dtype of ``x``.

    .. admonition:: Example

        >>> x = np.array([-1.0, 0.0, 2.0], dtype=np.float32)
        >>> F.elu(x).array
        array([-0.63212055,  0.        ,  2.        ], dtype=float32)
    """
    return ELU(alpha).apply((x,))[0]
