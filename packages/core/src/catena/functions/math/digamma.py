"""``digamma``: the logarithmic derivative of the gamma function."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.math import _special
from catena.functions.math.polygamma import polygamma
from catena.variable import Variable


class DiGamma(FunctionNode):
    """:math:`\\psi(x) = \\frac{d}{dx}\\ln\\Gamma(x)`."""

    @property
    def label(self) -> str:
        return 'digamma'

    def check_type_forward(self, in_types: Any) -> None:
        _special.check_float_input(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return _special.compute('digamma', 'digamma', inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        one = x.xp.ones((), dtype=_special.ORDER_DTYPE)
        return grad_outputs[0] * polygamma(one, x),


def digamma(x: Any) -> Variable:
    """Elementwise digamma function, :math:`\\psi(x) = \\frac{d}{dx}\\ln\\Gamma(x)`.

    Its derivative is :func:`~catena.functions.polygamma` of order 1. It is
    infinite at zero and the negative integers. On the CPU it needs SciPy.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: :math:`\\psi(x)`, of the dtype of ``x``.

    .. admonition:: Example

        >>> F.digamma(np.array([1.0], dtype=np.float64)).array
        array([-0.57721566])
    """
    return DiGamma().apply((x,))[0]
