"""``sqrt`` and ``rsqrt``: the square root and its reciprocal, element-wise."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import force_array, type_check
from catena.variable import Variable


class Sqrt(FunctionNode):

    @property
    def label(self) -> str:
        return 'sqrt'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        x, = inputs
        return force_array(backend.get_array_module(x).sqrt(x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, = self.get_retained_outputs()
        return grad_outputs[0] / (y * 2),


def sqrt(x: Any) -> Variable:
    """Elementwise square root, :math:`y_i = \\sqrt{x_i}`.

    Args:
        x: A Variable or array of floating point type (NaN where negative).

    Returns:
        Variable: The square root of ``x``.

    .. admonition:: Example

        >>> F.sqrt(np.array([1.0, 4.0, 9.0], dtype=np.float32)).array
        array([1., 2., 3.], dtype=float32)
    """
    return Sqrt().apply((x,))[0]


def rsqrt(x: Any) -> Variable:
    """Elementwise reciprocal of the square root, :math:`y_i = 1 / \\sqrt{x_i}`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: ``1 / sqrt(x)``.

    .. admonition:: Example

        >>> F.rsqrt(np.array([1.0, 4.0], dtype=np.float32)).array
        array([1. , 0.5], dtype=float32)
    """
    return 1.0 / sqrt(x)
