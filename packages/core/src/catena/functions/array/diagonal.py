"""``diagonal``: the (batched) diagonals of an array."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


def _expect_axis(x_type: Any, axis: int) -> None:
    if axis >= 0:
        type_check.expect(x_type.ndim > axis)
    else:
        type_check.expect(x_type.ndim >= -axis)


def _check_int(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f'{name} must be an int; got {value!r}')
    return value


class Diagonal(FunctionNode):
    """Takes the diagonals along two axes; the other axes are batch axes."""

    def __init__(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> None:
        self.offset = _check_int(offset, 'offset')
        self.axis1 = _check_int(axis1, 'axis1')
        self.axis2 = _check_int(axis2, 'axis2')

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.ndim >= 2)
        _expect_axis(x_type, self.axis1)
        _expect_axis(x_type, self.axis2)
        ndim = type_check.eval(x_type.ndim)
        if self.axis1 % ndim == self.axis2 % ndim:
            raise type_check.InvalidType(
                'axis1 and axis2 name different axes of x',
                f'axis1 = {self.axis1} and axis2 = {self.axis2} both name axis '
                f'{self.axis1 % ndim} of x (x.ndim = {ndim})')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return x.diagonal(self.offset, self.axis1, self.axis2),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return DiagonalGrad(self._in_shape, self.offset, self.axis1,
                            self.axis2).apply(grad_outputs)


class DiagonalGrad(FunctionNode):
    """Writes a gradient onto the diagonals of a zero array of the input's shape."""

    def __init__(self, in_shape: tuple[int, ...], offset: int, axis1: int, axis2: int) -> None:
        self.in_shape = in_shape
        self.offset = offset
        self.axis1 = axis1
        self.axis2 = axis2

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self.in_shape, gy.dtype)
        # A writable view with the two matrix axes last, as diagonal() puts them.
        matrices = xp.moveaxis(gx, (self.axis1, self.axis2), (-2, -1))
        n = gy.shape[-1]
        rows = xp.arange(n) + max(-self.offset, 0)
        cols = xp.arange(n) + max(self.offset, 0)
        matrices[..., rows, cols] = gy
        return gx,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return diagonal(grad_outputs[0], self.offset, self.axis1, self.axis2),


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
    """Takes the diagonals of ``x``, as :func:`numpy.diagonal`.

    The axes other than ``axis1`` and ``axis2`` are batch axes; the
    diagonals run along the last axis of the output.

    Args:
        x: A Variable or array with at least two dimensions.
        offset: The offset of the diagonal from the main one: positive values
            take diagonals above it, negative ones below.
        axis1: The axis of the rows.
        axis2: The axis of the columns.

    Returns:
        Variable: The (batched) diagonals.

    .. admonition:: Example

        >>> x = np.arange(9, dtype=np.float32).reshape(3, 3)
        >>> F.diagonal(x).array
        array([0., 4., 8.], dtype=float32)
        >>> F.diagonal(x, offset=1).array
        array([1., 5.], dtype=float32)
    """
    return Diagonal(offset, axis1, axis2).apply((x,))[0]
