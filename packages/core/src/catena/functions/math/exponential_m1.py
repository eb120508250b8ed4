"""``expm1``: :math:`e^x - 1`, accurate for small ``x``, element-wise."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.math.exponential import exp
from catena.utils import force_array, type_check
from catena.variable import Variable


class Expm1(FunctionNode):

    @property
    def label(self) -> str:
        return 'expm1'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return force_array(backend.get_array_module(x).expm1(x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * exp(x),


def expm1(x: Any) -> Variable:
    """Elementwise exponential minus one, :math:`y_i = e^{x_i} - 1`.

    Unlike ``exp(x) - 1``, it keeps full precision for ``x`` near zero.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: ``exp(x) - 1``.

    .. admonition:: Example

        >>> F.expm1(np.array([0.0, 1e-10], dtype=np.float64)).array
        array([0.e+00, 1.e-10])
    """
    return Expm1().apply((x,))[0]
