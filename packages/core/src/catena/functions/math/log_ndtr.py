"""``log_ndtr``: the logarithm of the standard normal cumulative distribution function."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.math import _special
from catena.functions.math.exponential import exp
from catena.variable import Variable


class LogNdtr(FunctionNode):
    """:math:`\\ln\\Phi(x)`, accurate far into the lower tail."""

    @property
    def label(self) -> str:
        return 'log_ndtr'

    def check_type_forward(self, in_types: Any) -> None:
        _special.check_float_input(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return _special.compute('log_ndtr', 'log_ndtr', inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        # phi(x) / Phi(x) as exp(-x^2/2 - ln Phi(x)): finite where Phi(x) underflows.
        return grad_outputs[0] * (exp(x * x * -0.5 - y) * (1.0 / _special.SQRT_2PI)),


def log_ndtr(x: Any) -> Variable:
    """Elementwise logarithm of :func:`~catena.functions.ndtr`, :math:`\\ln\\Phi(x)`.

    It stays accurate for very negative ``x``, where :math:`\\Phi(x)`
    underflows. On the CPU it needs SciPy.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: :math:`\\ln\\Phi(x)`, of the dtype of ``x``.

    .. admonition:: Example

        >>> F.log_ndtr(np.array([0.0, -10.0], dtype=np.float64)).array
        array([ -0.69314718, -53.23128515])
    """
    return LogNdtr().apply((x,))[0]
