"""``cosh`` and ``sinh``: hyperbolic cosine and sine, element-wise."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import force_array, type_check
from catena.variable import Variable


def _check_float(in_types: Any) -> None:
    type_check._argname(in_types, ('x',))
    type_check.expect(in_types[0].dtype.kind == 'f')


class Cosh(FunctionNode):

    @property
    def label(self) -> str:
        return 'cosh'

    def check_type_forward(self, in_types: Any) -> None:
        _check_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return force_array(backend.get_array_module(x).cosh(x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * sinh(x),


class Sinh(FunctionNode):

    @property
    def label(self) -> str:
        return 'sinh'

    def check_type_forward(self, in_types: Any) -> None:
        _check_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return force_array(backend.get_array_module(x).sinh(x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * cosh(x),


def cosh(x: Any) -> Variable:
    """Elementwise hyperbolic cosine, :math:`y_i = \\cosh x_i`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: The hyperbolic cosine of ``x``.

    .. admonition:: Example

        >>> F.cosh(np.array([0.0, 1.0], dtype=np.float64)).array
        array([1.        , 1.54308063])
    """
    return Cosh().apply((x,))[0]


def sinh(x: Any) -> Variable:
    """Elementwise hyperbolic sine, :math:`y_i = \\sinh x_i`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: The hyperbolic sine of ``x``.

    .. admonition:: Example

        >>> F.sinh(np.array([0.0, 1.0], dtype=np.float64)).array
        array([0.        , 1.17520119])
    """
    return Sinh().apply((x,))[0]
