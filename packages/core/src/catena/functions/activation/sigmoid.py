"""``sigmoid``: the logistic function, element-wise."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import force_array, type_check
from catena.variable import Variable


def _sigmoid_array(xp: Any, x: Any) -> Any:
    # 1 / (1 + exp(-x)) == (1 + tanh(x / 2)) / 2, which never overflows.
    half = x.dtype.type(0.5)
    y = force_array(xp.multiply(x, half))
    xp.tanh(y, out=y)
    y *= half
    y += half
    return y


class Sigmoid(FunctionNode):
    """Logistic sigmoid, :math:`y = 1 / (1 + e^{-x})`."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_outputs((0,))
        return _sigmoid_array(backend.get_array_module(x), x),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, = self.get_retained_outputs()
        return SigmoidGrad().apply((y, grad_outputs[0]))


class SigmoidGrad(FunctionNode):
    """The gradient of sigmoid from its output: ``gx = gy * y * (1 - y)``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        xp = backend.get_array_module(y)
        gx = force_array(xp.subtract(y.dtype.type(1), y))
        gx *= y
        gx *= gy
        return gx,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(ggx * gy * (1 - 2 * y))
            else:
                ret.append(ggx * y * (1 - y))
        return tuple(ret)


def sigmoid(x: Any) -> Variable:
    """Element-wise logistic sigmoid, :math:`y = 1 / (1 + \\exp(-x))`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: An array of the shape and dtype of ``x``, in ``[0, 1]``.

    .. admonition:: Example

        >>> x = np.array([-2.0, 0.0, 2.0], dtype=np.float32)
        >>> F.sigmoid(x).array
        array([0.11920291, 0.5       , 0.8807971 ], dtype=float32)
    """
    return Sigmoid().apply((x,))[0]
