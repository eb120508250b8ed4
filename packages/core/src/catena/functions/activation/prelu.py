"""``prelu``: the parametric rectified linear unit."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation import _channelwise, _piecewise
from catena.functions.array.reshape import reshape
from catena.utils import type_check
from catena.variable import Variable


class PReLUFunction(FunctionNode):
    """Parametric rectifier: ``x`` for ``x >= 0``, else ``W * x`` (W broadcast)."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'W'))
        _channelwise.expect_leading_shape(*in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, W = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(x)
        positive = _piecewise.positive_part(xp, x)
        y = xp.subtract(x, positive)  # min(x, 0), exactly
        y *= W.reshape(_channelwise.broadcast_shape(x.ndim, W.shape))
        y += positive
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        negative = x.array < 0
        ret = []
        for i in indexes:
            if i == 0:
                w = reshape(W, _channelwise.broadcast_shape(x.ndim, W.shape))
                # 1 where x >= 0, W where x < 0
                ret.append(gy * (w * negative + ~negative))
            else:
                ret.append(_channelwise.reduce_to_parameter(gy * x * negative, W.shape))
        return tuple(ret)


def prelu(x: Any, W: Any) -> Variable:  # noqa: N803 - Chainer's argument name
    """Parametric rectified linear unit, element-wise.

    .. math::

        y_i = \\begin{cases} x_i & (x_i \\ge 0) \\\\ W_i x_i & (x_i < 0) \\end{cases}

    ``W`` is shared over the batch (the first axis of ``x``) and over the
    trailing axes it does not cover: its shape must be
    ``x.shape[1:1 + W.ndim]``. For example, with ``x`` of shape
    ``(B, C, H, W)`` from a convolution, ``W`` of shape ``(C,)`` gives one
    slope per channel.

    Args:
        x: A Variable or array of floating point type; its first axis is the batch.
        W: The slopes of the negative part (a Variable or array of ``x``'s dtype).

    Returns:
        Variable: An array of the shape and dtype of ``x``.

    .. admonition:: Example

        >>> x = np.array([[-1.0, 2.0], [-3.0, -4.0]], dtype=np.float32)
        >>> W = np.array([0.1, 0.5], dtype=np.float32)
        >>> F.prelu(x, W).array
        array([[-0.1,  2. ],
               [-0.3, -2. ]], dtype=float32)
    """
    return PReLUFunction().apply((x, W))[0]
