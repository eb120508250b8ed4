"""``square``: the element-wise square."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import force_array, type_check
from catena.variable import Variable


class Square(FunctionNode):

    @property
    def label(self) -> str:
        return 'square'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return force_array(backend.get_array_module(x).square(x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * (x * 2),


def square(x: Any) -> Variable:
    """Elementwise square, :math:`y_i = x_i^2`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: The square of ``x``.

    .. admonition:: Example

        >>> F.square(np.array([-2.0, 3.0], dtype=np.float32)).array
        array([4., 9.], dtype=float32)
    """
    return Square().apply((x,))[0]
