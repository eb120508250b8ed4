"""``swish``: the self-gated activation ``x * sigmoid(beta * x)``."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation import _channelwise
from catena.functions.activation.sigmoid import sigmoid
from catena.functions.array.reshape import reshape
from catena.utils import type_check
from catena.variable import Variable


class Swish(FunctionNode):
    """Swish, :math:`y = x \\, \\sigma(\\beta x)` with ``beta`` broadcast as in prelu."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'beta'))
        _channelwise.expect_leading_shape(*in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, beta = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(x)
        half = x.dtype.type(0.5)
        b = beta.reshape(_channelwise.broadcast_shape(x.ndim, beta.shape))
        # sigmoid(t) == (1 + tanh(t / 2)) / 2, which never overflows.
        y = xp.multiply(x, b * half)
        xp.tanh(y, out=y)
        y *= half
        y += half
        y *= x
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, beta = self.get_retained_inputs()
        gy, = grad_outputs
        b = reshape(beta, _channelwise.broadcast_shape(x.ndim, beta.shape))
        s = sigmoid(x * b)
        # d sigma(t) / dt = sigma(t) (1 - sigma(t)), with t = beta * x
        ds = s * (1 - s)
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(gy * (s + x * b * ds))
            else:
                ret.append(_channelwise.reduce_to_parameter(gy * x * x * ds, beta.shape))
        return tuple(ret)


def swish(x: Any, beta: Any) -> Variable:
    """Swish activation, :math:`y = x \\cdot \\sigma(\\beta x)`, element-wise.

    :math:`\\sigma` is the logistic sigmoid. ``beta`` is a parameter shared
    over the batch (the first axis of ``x``) and over the trailing axes it
    does not cover: its shape must be ``x.shape[1:1 + beta.ndim]`` (it may be
    0-dimensional, one value for all).

    Args:
        x: A Variable or array of floating point type; its first axis is the batch.
        beta: The parameter :math:`\\beta` (a Variable or array of ``x``'s dtype).

    Returns:
        Variable: An array of the shape and dtype of ``x``.

    .. admonition:: Example

        >>> x = np.array([[-1.0, 0.0, 2.0]], dtype=np.float32)
        >>> beta = np.ones((3,), dtype=np.float32)
        >>> F.swish(x, beta).array
        array([[-0.2689414,  0.       ,  1.7615942]], dtype=float32)
    """
    return Swish().apply((x, beta))[0]
