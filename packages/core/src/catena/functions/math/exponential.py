"""``exp``, ``log``, ``log2`` and ``log10``, element-wise."""

from __future__ import annotations

import math
from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import force_array, type_check
from catena.variable import Variable

_LOG2_E = 1.0 / math.log(2.0)
_LOG10_E = 1.0 / math.log(10.0)


def _check_float(in_types: Any) -> None:
    type_check._argname(in_types, ('x',))
    type_check.expect(in_types[0].dtype.kind == 'f')


class Exp(FunctionNode):

    @property
    def label(self) -> str:
        return 'exp'

    def check_type_forward(self, in_types: Any) -> None:
        _check_float(in_types)

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
        _check_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return force_array(backend.get_array_module(inputs[0]).log(inputs[0])),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] / x,


class Log2(FunctionNode):

    @property
    def label(self) -> str:
        return 'log2'

    def check_type_forward(self, in_types: Any) -> None:
        _check_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return force_array(backend.get_array_module(inputs[0]).log2(inputs[0])),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * _LOG2_E / x,


class Log10(FunctionNode):

    @property
    def label(self) -> str:
        return 'log10'

    def check_type_forward(self, in_types: Any) -> None:
        _check_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return force_array(backend.get_array_module(inputs[0]).log10(inputs[0])),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * _LOG10_E / x,


def exp(x: Any) -> Variable:
    """Elementwise exponential, :math:`y_i = e^{x_i}`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: The exponential of ``x``.

    .. admonition:: Example

        >>> F.exp(np.array([0.0, 1.0], dtype=np.float64)).array
        array([1.        , 2.71828183])
    """
    return Exp().apply((x,))[0]


def log(x: Any) -> Variable:
    """Elementwise natural logarithm, :math:`y_i = \\ln x_i`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: The logarithm of ``x``.

    .. admonition:: Example

        >>> F.log(np.array([1.0, np.e], dtype=np.float64)).array
        array([0., 1.])
    """
    return Log().apply((x,))[0]


def log2(x: Any) -> Variable:
    """Elementwise logarithm to the base 2, :math:`y_i = \\log_2 x_i`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: The base-2 logarithm of ``x``.

    .. admonition:: Example

        >>> F.log2(np.array([1.0, 8.0], dtype=np.float32)).array
        array([0., 3.], dtype=float32)
    """
    return Log2().apply((x,))[0]


def log10(x: Any) -> Variable:
    """Elementwise logarithm to the base 10, :math:`y_i = \\log_{10} x_i`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: The base-10 logarithm of ``x``.

    .. admonition:: Example

        >>> F.log10(np.array([1.0, 100.0], dtype=np.float64)).array
        array([0., 2.])
    """
    return Log10().apply((x,))[0]
