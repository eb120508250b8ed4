"""``normalize``: division by the L2 norm along axes."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.math.sum import sum as _sum
from catena.functions.normalization import _common
from catena.utils import force_array, type_check
from catena.variable import Variable


class NormalizeL2(FunctionNode):
    """L2 normalization: ``y = x / (||x||_2 + eps)`` along ``axis``."""

    def __init__(self, eps: float = 1e-5, axis: Any = 1) -> None:
        self.eps = eps
        axis = _common.check_axis_argument(axis, 'normalize')
        if axis is None:
            raise TypeError('normalize: axis must be an int or a tuple of ints; got None')
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == 'f')
        for a in self.axis:
            type_check.expect(x_type.ndim > a, x_type.ndim >= -a)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        # Squares of float16 values overflow easily: sum them in float32.
        xc = x.astype(_common.compute_dtype(x.dtype), copy=False)
        # force_array: a 0-d x (axis ()) gives NumPy scalars, which out= cannot take.
        norm = force_array(xp.square(xc).sum(axis=self.axis, keepdims=True))
        xp.sqrt(norm, out=norm)
        norm += norm.dtype.type(self.eps)
        return force_array(xp.divide(xc, norm).astype(x.dtype, copy=False)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        dtype = _common.compute_dtype(x.dtype)
        xc, gyc = _common.cast(x, dtype), _common.cast(gy, dtype)
        axis = self.axis
        squares = _sum(xc * xc, axis=axis, keepdims=True)
        # gx = gy / d - x * sum(x * gy) / (norm * d**2), d = norm + eps. Where x is all
        # zeros the second term vanishes: compute norm there from 1, not 0, so that no
        # infinite derivative of sqrt reaches the graph.
        zero = (squares.array == 0).astype(dtype)
        norm_from_one = (squares + zero) ** 0.5
        d = norm_from_one * (1 - zero) + self.eps
        along = _sum(xc * gyc, axis=axis, keepdims=True) / (norm_from_one * d * d)
        gx = gyc / d - xc * along
        return _common.cast(gx, x.dtype),


def normalize(x: Any, eps: float = 1e-5, axis: Any = 1) -> Variable:
    """Divides ``x`` by its L2 norm along ``axis``.

    ``y = x / (sqrt(sum(x ** 2, axis)) + eps)``; the norm is broadcast back
    over ``axis`` (no axis is reduced away). ``eps`` keeps zero vectors
    finite.

    Args:
        x: A Variable or array of floating point type.
        eps: Added to the norm.
        axis: The axis or tuple of axes that the norm is taken over (the
            default, 1, normalizes each row of a batch of vectors).

    Returns:
        Variable: The normalized output, of x's shape and dtype.

    .. admonition:: Example

        >>> x = np.array([[3., 4.], [6., 8.]], dtype=np.float32)
        >>> F.normalize(x, eps=0.).array[0]
        array([0.6, 0.8], dtype=float32)
    """
    return NormalizeL2(eps, axis).apply((x,))[0]
