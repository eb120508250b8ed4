"""``relu``: the rectified linear unit, element-wise."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation import _piecewise
from catena.utils import type_check
from catena.variable import Variable


class ReLU(FunctionNode):
    """Rectified linear unit, :math:`y = \\max(0, x)`."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_outputs((0,))
        return _piecewise.positive_part(backend.get_array_module(x), x),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, = self.get_retained_outputs()
        return ReLUGrad2(y.array).apply(grad_outputs)


class ReLUGrad2(_piecewise.PiecewiseLinearGrad):
    """The gradient of relu from its output: ``gx = gy * (y > 0)``.

    Args:
        y: The output of relu.
    """

    def __init__(self, y: Any) -> None:
        # Built again from its own 0/1 coefficient in double backprop, it is unchanged.
        super().__init__(_piecewise.indicator(y > 0, y.dtype))


def relu(x: Any) -> Variable:
    """Rectified linear unit, :math:`y = \\max(0, x)`, element-wise.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: The rectified ``x``, of the same shape and dtype.

    .. admonition:: Example

        >>> x = np.array([[-1, 0], [2, -3], [-2, 1]], dtype=np.float32)
        >>> F.relu(x).array
        array([[0., 0.],
               [2., 0.],
               [0., 1.]], dtype=float32)
    """
    return ReLU().apply((x,))[0]
