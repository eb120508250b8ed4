"""``ndtri``: the inverse of the standard normal cumulative distribution function."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.math import _special
from catena.functions.math.exponential import exp
from catena.variable import Variable


class Ndtri(FunctionNode):
    """:math:`\\Phi^{-1}(x)`, the quantile function of the standard normal."""

    @property
    def label(self) -> str:
        return 'ndtri'

    def check_type_forward(self, in_types: Any) -> None:
        _special.check_float_input(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        return _special.compute('ndtri', 'ndtri', inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, = self.get_retained_outputs()
        return grad_outputs[0] * (exp(y * y * 0.5) * _special.SQRT_2PI),


def ndtri(x: Any) -> Variable:
    """Elementwise inverse of :func:`~catena.functions.ndtr`.

    :math:`y = \\Phi^{-1}(x)` solves :math:`\\Phi(y) = x`; it is
    :math:`\\mp\\infty` at 0 and 1 and NaN outside :math:`[0, 1]`. On the
    CPU it needs SciPy.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: :math:`\\Phi^{-1}(x)`, of the dtype of ``x``.

    .. admonition:: Example

        >>> F.ndtri(np.array([0.5, 0.975], dtype=np.float64)).array
        array([0.        , 1.95996398])
    """
    return Ndtri().apply((x,))[0]
