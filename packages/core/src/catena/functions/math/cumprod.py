"""``cumprod``: the cumulative product along an axis."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.reshape import reshape
from catena.functions.array.transpose import transpose
from catena.functions.math._cumulative import flip
from catena.functions.math.cumsum import _int_or_none, cumsum
from catena.functions.math.minmax import _check_axis
from catena.functions.math.sum import sum as _sum
from catena.utils import force_array, type_check
from catena.variable import Variable


class Cumprod(FunctionNode):
    """Cumulative product along an axis (of the flattened array if the axis is None)."""

    def __init__(self, axis: Any = None) -> None:
        self.axis = _int_or_none(axis)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f')
        if self.axis is not None:
            _check_axis(x_type, self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        return force_array(xp.cumprod(x, axis=self.axis)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        in_shape = x.shape
        if self.axis is None:
            x = reshape(x, (x.size,))
            axis = 0
        else:
            axis = self.axis % x.ndim
        xp = backend.get_array_module(x.array)
        if x.size == 0 or bool(xp.all(x.array != 0)):
            # dy_j/dx_i = y_j / x_i for j >= i.
            gx = flip(cumsum(flip(gy * y, axis), axis), axis) / x
        else:
            gx = _grad_with_zeros(x, gy, axis)
        return reshape(gx, in_shape),


def _grad_with_zeros(x: Variable, gy: Variable, axis: int) -> Variable:
    """The gradient without dividing by ``x``: ``O(n^2)`` in the length of ``axis``."""
    xp = backend.get_array_module(x.array)
    order = [a for a in range(x.ndim) if a != axis] + [axis]
    back = [0] * x.ndim
    for position, a in enumerate(order):
        back[a] = position
    xt = transpose(x, order)
    gyt = transpose(gy, order)
    n = x.shape[axis]
    dtype = x.dtype
    eye = xp.eye(n, dtype=dtype)
    # Row i holds x with x_i replaced by one; its cumulative product along the
    # last axis at j is dy_j/dx_i for j >= i.
    rows = reshape(xt, xt.shape[:-1] + (1, n)) * (1 - eye) + eye
    partial = cumprod(rows, axis=-1)
    upper = xp.triu(xp.ones((n, n), dtype=dtype))
    weights = reshape(gyt, gyt.shape[:-1] + (1, n)) * upper
    gxt = _sum(partial * weights, axis=-1)
    return transpose(gxt, back)


def cumprod(x: Any, axis: Any = None) -> Variable:
    """The cumulative product of the elements of ``x`` along ``axis``.

    The gradient is exact where ``x`` has zeros too.

    Args:
        x: A Variable or array of floating point type.
        axis: An int, or None to multiply over the flattened array (the
            result is then 1-D).

    Returns:
        Variable: The cumulative products.

    .. admonition:: Example

        >>> x = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
        >>> F.cumprod(x, axis=1).array
        array([[ 1.,  2.],
               [ 3., 12.]], dtype=float32)
    """
    return Cumprod(axis).apply((x,))[0]
