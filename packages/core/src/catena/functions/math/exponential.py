"""``exp`` and ``log``, element-wise."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import force_array, type_check
from catena.variable import Variable


class Exp(FunctionNode):

    @property
    def label(self) -> str:
        return 'exp'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        return force_array(backend.get_array_module(inputs[0]).exp(inputs[0])),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, = self.get_retained_outputs()
        return grad_outputs[0] * y,


class Log(FunctionNode):

    @property
    def label(self) -> str:
        return 'log'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return force_array(backend.get_array_module(inputs[0]).log(inputs[0])),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] / x,


def exp(x: Any) -> Variable:
    """Elementwise exponential, :math:`y = e^x`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: The exponential of ``x``.
    """
    return Exp().apply((x,))[0]


def log(x: Any) -> Variable:
    """Elementwise natural logarithm, :math:`y = \\ln x`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: The logarithm of ``x``.
    """
    return Log().apply((x,))[0]
