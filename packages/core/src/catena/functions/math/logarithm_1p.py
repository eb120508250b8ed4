"""``log1p``: :math:`\\ln(1 + x)`, accurate for small ``x``, element-wise."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import force_array, type_check
from catena.variable import Variable


class Log1p(FunctionNode):

    @property
    def label(self) -> str:
        return 'log1p'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return force_array(backend.get_array_module(x).log1p(x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] / (x + 1),


def log1p(x: Any) -> Variable:
    """Elementwise natural logarithm of one plus the input, :math:`y_i = \\ln(1 + x_i)`.

    Unlike ``log(1 + x)``, it keeps full precision for ``x`` near zero.

    Args:
        x: A Variable or array of floating point type, greater than -1.

    Returns:
        Variable: ``log(1 + x)``.

    .. admonition:: Example

        >>> F.log1p(np.array([0.0, 1e-10], dtype=np.float64)).array
        array([0.e+00, 1.e-10])
    """
    return Log1p().apply((x,))[0]
