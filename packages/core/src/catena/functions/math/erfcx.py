"""``erfcx``: the scaled complementary error function, element-wise."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.math import _special
from catena.variable import Variable


class ErfcX(FunctionNode):
    """The scaled complementary error function :math:`e^{x^2}\\mathrm{erfc}(x)`."""

    @property
    def label(self) -> str:
        return 'erfcx'

    def check_type_forward(self, in_types: Any) -> None:
        _special.check_float_input(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return _special.compute('erfcx', 'erfcx', inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        # d/dx e^{x^2} erfc(x) = 2x e^{x^2} erfc(x) - 2/sqrt(pi)
        return grad_outputs[0] * (x * y * 2.0 - 2.0 / _special.SQRT_PI),


def erfcx(x: Any) -> Variable:
    """Elementwise scaled complementary error function.

    .. math:: \\mathrm{erfcx}(x) = e^{x^2} \\mathrm{erfc}(x)

    It neither underflows nor loses precision for large ``x``, where
    :math:`\\mathrm{erfc}(x)` does. On the CPU it needs SciPy.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: :math:`\\mathrm{erfcx}(x)`, of the dtype of ``x``.

    .. admonition:: Example

        >>> F.erfcx(np.array([0.0, 30.0], dtype=np.float64)).array
        array([1.        , 0.01879589])
    """
    return ErfcX().apply((x,))[0]
