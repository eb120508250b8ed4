"""``softplus``: a smooth approximation of the rectifier."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation import _piecewise, _scalar
from catena.functions.activation.sigmoid import sigmoid
from catena.utils import force_array, type_check
from catena.variable import Variable


class Softplus(FunctionNode):
    """Softplus, :math:`y = \\log(1 + e^{\\beta x}) / \\beta`."""

    def __init__(self, beta: float = 1.0) -> None:
        beta = _scalar.real(beta, 'beta', 'softplus')
        if beta == 0:
            raise ValueError('softplus: beta must be nonzero (y divides by it); got 0')
        self.beta = beta
        self.beta_inv = 1.0 / beta

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        cast = x.dtype.type
        # log(1 + exp(t)) == max(t, 0) + log1p(exp(-|t|)), which never overflows.
        t = force_array(xp.multiply(x, cast(self.beta)))
        y = _piecewise.positive_part(xp, t)
        xp.abs(t, out=t)
        xp.negative(t, out=t)
        xp.exp(t, out=t)
        xp.log1p(t, out=t)
        y += t
        if self.beta != 1:
            y *= cast(self.beta_inv)
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        bx = x if self.beta == 1 else x * self.beta
        return grad_outputs[0] * sigmoid(bx),


def softplus(x: Any, beta: float = 1.0) -> Variable:
    """Element-wise softplus, :math:`y = \\frac{1}{\\beta} \\log(1 + \\exp(\\beta x))`.

    It is computed without overflow for any ``x``; as :math:`\\beta` grows it
    approaches :func:`relu`.

    Args:
        x: A Variable or array of floating point type.
        beta: The sharpness :math:`\\beta` (nonzero).

    Returns:
        Variable: An array of the shape and dtype of ``x``.

    .. admonition:: Example

        >>> x = np.array([-1.0, 0.0, 2.0], dtype=np.float32)
        >>> y = F.softplus(x)
        >>> y.dtype
        dtype('float32')
        >>> y.array.tolist()
        [0.313262, 0.693147, 2.126928]
    """
    return Softplus(beta).apply((x,))[0]
