"""``erfcinv``: the inverse complementary error function, element-wise."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.math import _special
from catena.functions.math.exponential import exp
from catena.variable import Variable


class ErfcInv(FunctionNode):
    """The inverse of :math:`\\mathrm{erfc}` on :math:`(0, 2)`."""

    @property
    def label(self) -> str:
        return 'erfcinv'

    def check_type_forward(self, in_types: Any) -> None:
        _special.check_float_input(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        return _special.compute('erfcinv', 'erfcinv', inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, = self.get_retained_outputs()
        return grad_outputs[0] * (exp(y * y) * (-_special.SQRT_PI / 2.0)),


def erfcinv(x: Any) -> Variable:
    """Elementwise inverse complementary error function.

    :math:`y = \\mathrm{erfcinv}(x)` solves :math:`\\mathrm{erfc}(y) = x`; it
    is :math:`+\\infty` at 0, :math:`-\\infty` at 2 and NaN outside
    :math:`[0, 2]`. On the CPU it needs SciPy.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: :math:`\\mathrm{erfcinv}(x)`, of the dtype of ``x``.

    .. admonition:: Example

        >>> F.erfcinv(np.array([0.5, 1.5], dtype=np.float64)).array
        array([ 0.47693628, -0.47693628])
    """
    return ErfcInv().apply((x,))[0]
