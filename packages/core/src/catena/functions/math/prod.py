"""``prod``: the product of elements over given axes."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.reshape import reshape
from catena.functions.array.transpose import transpose
from catena.functions.math._cumulative import flip, shift_forward
from catena.functions.math.cumprod import cumprod
from catena.functions.math.minmax import _check_axis, _reduction_axes
from catena.utils import type_check
from catena.variable import Variable


def _exclusive_cumprod(x: Variable) -> Variable:
    """``y[i] = prod(x[:i])`` along axis 0 (one at ``i = 0``)."""
    return shift_forward(cumprod(x, axis=0), 0, 1)


class Prod(FunctionNode):
    """Product of the elements over axes."""

    def __init__(self, axis: Any = None, keepdims: bool = False) -> None:
        self.axis = _reduction_axes(axis)
        self.keepdims = keepdims

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f')
        for axis in self.axis or ():
            _check_axis(x_type, axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        return xp.asarray(xp.prod(x, axis=self.axis, keepdims=self.keepdims)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        ndim = x.ndim
        if ndim == 0:
            return gy,
        reduced = list(range(ndim)) if self.axis is None else sorted(a % ndim for a in self.axis)
        kept = [a for a in range(ndim) if a not in reduced]
        order = reduced + kept
        back = [0] * ndim
        for position, a in enumerate(order):
            back[a] = position
        kept_shape = tuple(x.shape[a] for a in kept)
        # The reduced elements in one leading axis, so that the product of all
        # the others is the product of those before times those after (exact
        # where x has zeros, unlike prod / x).
        n_reduced = 1
        for a in reduced:
            n_reduced *= x.shape[a]
        xt = reshape(transpose(x, order), (n_reduced,) + kept_shape)
        others = _exclusive_cumprod(xt) * flip(_exclusive_cumprod(flip(xt, 0)), 0)
        others = transpose(reshape(others, tuple(x.shape[a] for a in order)), back)
        gy = reshape(gy, tuple(1 if a in reduced else n for a, n in enumerate(x.shape)))
        return others * gy,


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    """The product of the elements of ``x`` over ``axis``.

    The gradient is exact where ``x`` has zeros too: each element gets the
    product of the others.

    Args:
        x: A Variable or array of floating point type.
        axis: None (all axes), an int or a tuple of ints.
        keepdims: Keep the reduced axes with length one.

    Returns:
        Variable: The product.

    .. admonition:: Example

        >>> x = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
        >>> F.prod(x, axis=1).array
        array([ 2., 12.], dtype=float32)
    """
    return Prod(axis, keepdims).apply((x,))[0]
