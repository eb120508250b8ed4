"""``arctanh``: the inverse hyperbolic tangent, element-wise."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import force_array, type_check
from catena.variable import Variable


class Arctanh(FunctionNode):

    @property
    def label(self) -> str:
        return 'arctanh'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return force_array(backend.get_array_module(x).arctanh(x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] / (1 - x * x),


def arctanh(x: Any) -> Variable:
    """Elementwise inverse hyperbolic tangent, :math:`y_i = \\tanh^{-1} x_i`.

    Args:
        x: A Variable or array of floating point type, with values in
            :math:`(-1, 1)` (infinite at the ends, NaN outside).

    Returns:
        Variable: The inverse hyperbolic tangent of ``x``.

    .. admonition:: Example

        >>> F.arctanh(np.array([0.0, 0.5], dtype=np.float64)).array
        array([0.        , 0.54930614])
    """
    return Arctanh().apply((x,))[0]
