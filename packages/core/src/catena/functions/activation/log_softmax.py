"""``log_softmax``: the logarithm of softmax along an axis."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation import _along_axis
from catena.functions.math.exponential import exp
from catena.functions.math.sum import sum as _sum
from catena.utils import type_check
from catena.variable import Variable


def _logsumexp(xp: Any, x: Any, axis: int) -> tuple[Any, Any]:
    """Returns ``log(sum(exp(x), axis, keepdims=True))`` and a scratch array of x's shape.

    The sum is shifted by the maximum where an exponential could overflow (see
    :func:`~catena.functions.activation._along_axis.exp_and_sum`).
    """
    scratch, s, shift = _along_axis.exp_and_sum(xp, x, axis)
    lse = xp.log(s, out=s)
    if shift is not None:
        lse += shift
    return lse, scratch


class LogSoftmax(FunctionNode):
    """Log-softmax along ``axis``: :math:`y_i = x_i - \\log \\sum_j e^{x_j}`."""

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
        lse, y = _logsumexp(xp, x, self.axis)
        xp.subtract(x, lse, out=y)
        self.retain_outputs((0,))
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, = self.get_retained_outputs()
        return LogSoftmaxGrad(self.axis).apply((y, grad_outputs[0]))


class LogSoftmaxGrad(FunctionNode):
    """The gradient of log_softmax from its output: ``gx = gy - exp(y) * sum(gy)``."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        xp = backend.get_array_module(y)
        gx = xp.exp(y)
        gx *= _along_axis.sum_along(xp, gy, self.axis)
        xp.subtract(gy, gx, out=gx)
        return gx,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        axis = self.axis
        e = exp(y)
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(-ggx * e * _sum(gy, axis=axis, keepdims=True))
            else:
                ret.append(ggx - _sum(ggx * e, axis=axis, keepdims=True))
        return tuple(ret)


def log_softmax(x: Any, axis: int = 1) -> Variable:
    """Log-softmax along an axis: :math:`y_i = x_i - \\log \\sum_j \\exp(x_j)`.

    It is computed with a log-sum-exp, shifted by the maximum where an
    exponential could overflow, which is both safe and more accurate than
    ``log(softmax(x))``.

    Args:
        x: A Variable or array of floating point type.
        axis: The axis to normalize along.

    Returns:
        Variable: An array of the shape of ``x``.

    .. admonition:: Example

        >>> x = np.array([[0, 1, 2], [0, 2, 4]], dtype=np.float32)
        >>> F.log_softmax(x, axis=1).array.round(4)
        array([[-2.4076, -1.4076, -0.4076],
               [-4.1429, -2.1429, -0.1429]], dtype=float32)
    """
    return LogSoftmax(_along_axis.check_axis_argument(axis, 'log_softmax')).apply((x,))[0]
