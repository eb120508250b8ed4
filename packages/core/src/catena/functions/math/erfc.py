"""``erfc``: the complementary error function, element-wise."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.math import _special
from catena.functions.math.exponential import exp
from catena.variable import Variable


class Erfc(FunctionNode):
    """The complementary error function :math:`1 - \\mathrm{erf}(x)`."""

    @property
    def label(self) -> str:
        return 'erfc'

    def check_type_forward(self, in_types: Any) -> None:
        _special.check_float_input(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return _special.compute('erfc', 'erfc', inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * (exp(-(x * x)) * (-2.0 / _special.SQRT_PI)),


def erfc(x: Any) -> Variable:
    """Elementwise complementary error function, :math:`1 - \\mathrm{erf}(x)`.

    It keeps its precision where :math:`\\mathrm{erf}(x)` is close to one.
    On the CPU it needs SciPy.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: :math:`\\mathrm{erfc}(x)`, of the dtype of ``x``.

    .. admonition:: Example

        >>> F.erfc(np.array([0.0, 1.0], dtype=np.float64)).array
        array([1.        , 0.15729921])
    """
    return Erfc().apply((x,))[0]
