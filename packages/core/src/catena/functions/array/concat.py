"""``concat``: join arrays along an existing axis."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


def _check_axis(x_type: Any, axis: int) -> None:
    """Expects ``-x.ndim <= axis < x.ndim`` (``axis`` is a Python int)."""
    if axis >= 0:
        type_check.expect(x_type.ndim > axis)
    else:
        type_check.expect(-axis <= x_type.ndim)


class Concat(FunctionNode):
    """Concatenates arrays along an axis."""

    def __init__(self, axis: int = 1) -> None:
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f'axis must be an int; got {axis!r}')
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        if type_check.in_light_mode() and _same_but_axis(in_types, self.axis):
            return
        type_check.expect(in_types.size() > 0)
        type_check._argname(in_types, [f'xs[{i}]' for i in range(len(in_types))])
        first = in_types[0]
        _check_axis(first, self.axis)
        ndim = type_check.eval(first.ndim)
        axis = self.axis % ndim
        for x_type in in_types[1:]:
            type_check.expect(first.dtype == x_type.dtype, first.ndim == x_type.ndim)
            for d in range(ndim):
                if d != axis:
                    type_check.expect(first.shape[d] == x_type.shape[d])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        first = inputs[0]
        axis = self.axis % first.ndim
        self._axis = axis
        self._sizes = [x.shape[axis] for x in inputs]
        return backend.get_array_module(first).concatenate(inputs, axis=axis),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return ConcatGrad(self._axis, self._sizes).apply(grad_outputs)


def _same_but_axis(arrays: Sequence[Any], axis: int) -> bool:
    """Fast light-mode check: one dtype, and equal shapes except along ``axis``."""
    if not arrays:
        return False
    first = arrays[0]
    ndim = first.ndim
    if not -ndim <= axis < ndim:
        return False
    axis %= ndim
    shape = first.shape[:axis] + first.shape[axis + 1:]
    dtype = first.dtype
    for x in arrays[1:]:
        if x.dtype != dtype or x.ndim != ndim or x.shape[:axis] + x.shape[axis + 1:] != shape:
            return False
    return True


class ConcatGrad(FunctionNode):
    """Cuts an array along ``axis`` into consecutive views of the given sizes.

    It is the gradient of :class:`Concat` (and of the stacking functions);
    its own gradient concatenates the pieces again.
    """

    def __init__(self, axis: int, sizes: Sequence[int]) -> None:
        self.axis = axis
        self.sizes = tuple(sizes)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        self._shape = gy.shape
        lead = (slice(None),) * self.axis
        pieces = []
        start = 0
        for size in self.sizes:
            pieces.append(gy[lead + (slice(start, start + size),)])
            start += size
        return tuple(pieces)

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        present = [g for g in grad_outputs if g is not None]
        xp = present[0].xp
        dtype = present[0].dtype
        pieces: list[Any] = []
        for g, size in zip(grad_outputs, self.sizes):
            if g is None:
                shape = self._shape[:self.axis] + (size,) + self._shape[self.axis + 1:]
                g = Variable(xp.zeros(shape, dtype), requires_grad=False)
            pieces.append(g)
        return Concat(self.axis).apply(pieces)


def split_views(gy: Any, axis: int, sizes: Sequence[int]) -> tuple[Variable, ...]:
    """Splits ``gy`` along ``axis`` into pieces of ``sizes`` (differentiably)."""
    return ConcatGrad(axis, sizes).apply((gy,))


def concat(xs: Sequence[Any], axis: int = 1) -> Variable:
    """Concatenates Variables or arrays along an axis.

    All inputs must have the same dtype and number of dimensions, and the same
    shape except along ``axis``.

    Args:
        xs: A non-empty sequence of Variables or arrays.
        axis: The axis along which to concatenate; negative values count from
            the last axis.

    Returns:
        Variable: The concatenated variable.

    .. admonition:: Example

        >>> x = np.array([[1, 2], [3, 4]], dtype=np.float32)
        >>> y = np.array([[5], [6]], dtype=np.float32)
        >>> F.concat((x, y)).array
        array([[1., 2., 5.],
               [3., 4., 6.]], dtype=float32)
    """
    return Concat(axis).apply(xs)[0]
