"""``softmax``: the normalized exponential along an axis."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation import _along_axis
from catena.functions.math.sum import sum as _sum
from catena.utils import type_check
from catena.variable import Variable


class Softmax(FunctionNode):
    """Softmax along ``axis``: :math:`y_i = e^{x_i} / \\sum_j e^{x_j}`."""

    def __init__(self, axis: int = 1) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == 'f')
        _along_axis.expect_axis_in_range(x_type, self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        y, s, _ = _along_axis.exp_and_sum(xp, x, self.axis)
        y *= xp.reciprocal(s)
        self.retain_outputs((0,))
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, = self.get_retained_outputs()
        return _SoftmaxGrad(self.axis).apply((y, grad_outputs[0]))


class _SoftmaxGrad(FunctionNode):
    """The gradient of softmax from its output: ``gx = y * (gy - sum(y * gy))``."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        xp = backend.get_array_module(y)
        gx = xp.subtract(gy, _along_axis.dot_along(xp, y, gy, self.axis))
        gx *= y
        return gx,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        axis = self.axis
        ret = []
        for i in indexes:
            if i == 0:
                # d gx_i / d y_k = delta_ik (gy_i - s) - y_i gy_k with s = sum(y * gy)
                s = _sum(y * gy, axis=axis, keepdims=True)
                t = _sum(ggx * y, axis=axis, keepdims=True)
                ret.append(ggx * (gy - s) - gy * t)
            else:
                # gx is linear in gy, with a symmetric Jacobian.
                ret.append(_SoftmaxGrad(axis).apply((y, ggx))[0])
        return tuple(ret)


def softmax(x: Any, axis: int = 1) -> Variable:
    """Softmax along an axis: :math:`y_i = \\exp(x_i) / \\sum_j \\exp(x_j)`.

    It is numerically stable: where an exponential could overflow or all of
    them underflow, the maximum along ``axis`` is subtracted first.

    Args:
        x: A Variable or array of floating point type.
        axis: The axis to normalize along.

    Returns:
        Variable: An array of the shape of ``x`` whose entries along ``axis``
        are positive and sum to one.

    .. admonition:: Example

        >>> x = np.array([[0, 1, 2], [0, 2, 4]], dtype=np.float32)
        >>> F.softmax(x, axis=1).array.round(4)
        array([[0.09  , 0.2447, 0.6652],
               [0.0159, 0.1173, 0.8668]], dtype=float32)
    """
    return Softmax(_along_axis.check_axis_argument(axis, 'softmax')).apply((x,))[0]
