"""``ndtr``: the standard normal cumulative distribution function."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.math import _special
from catena.functions.math.exponential import exp
from catena.variable import Variable


class Ndtr(FunctionNode):
    """:math:`\\Phi(x) = \\frac{1}{\\sqrt{2\\pi}}\\int_{-\\infty}^x e^{-t^2/2}dt`."""

    @property
    def label(self) -> str:
        return 'ndtr'

    def check_type_forward(self, in_types: Any) -> None:
        _special.check_float_input(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return _special.compute('ndtr', 'ndtr', inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * (exp(x * x * -0.5) * (1.0 / _special.SQRT_2PI)),


def ndtr(x: Any) -> Variable:
    """Elementwise cumulative distribution function of the standard normal.

    .. math:: \\Phi(x) = \\frac{1}{\\sqrt{2\\pi}} \\int_{-\\infty}^{x} e^{-t^2/2} dt

    On the CPU it needs SciPy.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: :math:`\\Phi(x)`, of the dtype of ``x``.

    .. admonition:: Example

        >>> F.ndtr(np.array([0.0, 1.0], dtype=np.float64)).array
        array([0.5       , 0.84134475])
    """
    return Ndtr().apply((x,))[0]
