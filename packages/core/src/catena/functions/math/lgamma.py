"""``lgamma``: the logarithm of the absolute value of the gamma function."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.math import _special
from catena.functions.math.digamma import digamma
from catena.variable import Variable


class LGamma(FunctionNode):
    """:math:`\\ln|\\Gamma(x)|`."""

    @property
    def label(self) -> str:
        return 'lgamma'

    def check_type_forward(self, in_types: Any) -> None:
        _special.check_float_input(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return _special.compute('lgamma', 'gammaln', inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * digamma(x),


def lgamma(x: Any) -> Variable:
    """Elementwise log-gamma function, :math:`\\ln|\\Gamma(x)|`.

    Its derivative is :func:`~catena.functions.digamma`. It is infinite at
    zero and the negative integers. On the CPU it needs SciPy.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: :math:`\\ln|\\Gamma(x)|`, of the dtype of ``x``.

    .. admonition:: Example

        >>> F.lgamma(np.array([1.0, 4.0], dtype=np.float64)).array
        array([0.        , 1.79175947])
    """
    return LGamma().apply((x,))[0]
