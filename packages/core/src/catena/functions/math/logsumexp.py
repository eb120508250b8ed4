"""``logsumexp``: ``log(sum(exp(x)))`` over given axes, computed stably."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.reshape import reshape
from catena.functions.math.exponential import exp
from catena.functions.math.minmax import _check_axis, _reduction_axes
from catena.functions.math.sum_to import sum_to
from catena.utils import type_check
from catena.variable import Variable


def _kept_shape(shape: tuple[int, ...], axis: tuple[int, ...] | None) -> tuple[int, ...]:
    """``shape`` with the reduced axes as ones (the keepdims shape)."""
    ndim = len(shape)
    if axis is None:
        return (1,) * ndim
    reduced = {a % ndim for a in axis}
    return tuple(1 if i in reduced else n for i, n in enumerate(shape))


class LogSumExp(FunctionNode):
    """``log(sum(exp(x)))`` over axes, with the maximum factored out."""

    def __init__(self, axis: Any = None) -> None:
        self.axis = _reduction_axes(axis)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f')
        for axis in self.axis or ():
            _check_axis(x_type, axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        m = x.max(axis=self.axis, keepdims=True)
        t = xp.subtract(x, m, out=xp.empty_like(x))  # out=: an array even when 0-d
        xp.exp(t, out=t)
        y = xp.asarray(t.sum(axis=self.axis))
        xp.log(y, out=y)
        y += m.reshape(y.shape)
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        return LogSumExpGrad(self.axis).apply((x, y, grad_outputs[0]))


class LogSumExpGrad(FunctionNode):
    """``gx = gy * exp(x - y)``, i.e. ``gy`` times the softmax over the axes."""

    def __init__(self, axis: tuple[int, ...] | None) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x, y, gy = inputs
        xp = backend.get_array_module(x)
        kept = _kept_shape(x.shape, self.axis)
        gx = xp.subtract(x, y.reshape(kept), out=xp.empty_like(x))
        xp.exp(gx, out=gx)
        gx *= gy.reshape(kept)
        return gx,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        kept = _kept_shape(x.shape, self.axis)
        softmax = exp(x - reshape(y, kept))
        ret = []
        if 0 in indexes or 1 in indexes:
            g_x = ggx * softmax * reshape(gy, kept)
            if 0 in indexes:
                ret.append(g_x)
            if 1 in indexes:
                ret.append(-reshape(sum_to(g_x, kept), y.shape))
        if 2 in indexes:
            ret.append(reshape(sum_to(ggx * softmax, kept), gy.shape))
        return tuple(ret)


def logsumexp(x: Any, axis: Any = None) -> Variable:
    """``log(sum(exp(x)))`` over ``axis``, without overflow.

    Args:
        x: A Variable or array of floating point type.
        axis: None (all axes), an int or a tuple of ints.

    Returns:
        Variable: The result, with the reduced axes removed.

    .. admonition:: Example

        >>> x = np.log(np.array([[1.0, 3.0], [2.0, 2.0]], dtype=np.float32))
        >>> np.exp(F.logsumexp(x, axis=1).array)
        array([4., 4.], dtype=float32)
    """
    return LogSumExp(axis).apply((x,))[0]
