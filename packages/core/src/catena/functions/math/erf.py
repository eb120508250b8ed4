"""``erf``: the error function, element-wise."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.math import _special
from catena.functions.math.exponential import exp
from catena.variable import Variable


class Erf(FunctionNode):
    """The error function :math:`\\mathrm{erf}(x) = \\frac{2}{\\sqrt\\pi}\\int_0^x e^{-t^2}dt`."""

    @property
    def label(self) -> str:
        return 'erf'

    def check_type_forward(self, in_types: Any) -> None:
        _special.check_float_input(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return _special.compute('erf', 'erf', inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * (exp(-(x * x)) * (2.0 / _special.SQRT_PI)),


def erf(x: Any) -> Variable:
    """Elementwise error function.

    .. math:: \\mathrm{erf}(x) = \\frac{2}{\\sqrt{\\pi}} \\int_0^x e^{-t^2} dt

    On the CPU it needs SciPy.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: :math:`\\mathrm{erf}(x)`, of the dtype of ``x``.

    .. admonition:: Example

        >>> F.erf(np.array([-1.0, 0.0, 1.0], dtype=np.float32)).array
        array([-0.8427008,  0.       ,  0.8427008], dtype=float32)
    """
    return Erf().apply((x,))[0]
