"""``erfinv``: the inverse error function, element-wise."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.math import _special
from catena.functions.math.exponential import exp
from catena.variable import Variable


class ErfInv(FunctionNode):
    """The inverse of :math:`\\mathrm{erf}` on :math:`(-1, 1)`."""

    @property
    def label(self) -> str:
        return 'erfinv'

    def check_type_forward(self, in_types: Any) -> None:
        _special.check_float_input(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        return _special.compute('erfinv', 'erfinv', inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, = self.get_retained_outputs()
        return grad_outputs[0] * (exp(y * y) * (_special.SQRT_PI / 2.0)),


def erfinv(x: Any) -> Variable:
    """Elementwise inverse error function.

    :math:`y = \\mathrm{erfinv}(x)` solves :math:`\\mathrm{erf}(y) = x`; it is
    :math:`\\pm\\infty` at :math:`x = \\pm 1` and NaN outside :math:`[-1, 1]`.
    On the CPU it needs SciPy.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: :math:`\\mathrm{erfinv}(x)`, of the dtype of ``x``.

    .. admonition:: Example

        >>> F.erfinv(np.array([0.0, 0.5], dtype=np.float64)).array
        array([0.        , 0.47693628])
    """
    return ErfInv().apply((x,))[0]
