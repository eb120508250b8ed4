"""``pad_sequence``: pad sequences of different lengths into one array."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.get_item import get_item
from catena.utils import type_check
from catena.variable import Variable


class PadSequence(FunctionNode):
    """Stacks sequences along a new axis 0, padding each to a common length."""

    def __init__(self, length: int | None = None, padding: Any = 0) -> None:
        if length is not None and (not isinstance(length, int) or isinstance(length, bool)):
            raise TypeError(f'length must be an int or None; got {length!r}')
        if length is not None and length < 0:
            raise ValueError(f'length must not be negative; got {length}')
        self.length = length
        self.padding = padding

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        if not type_check.in_light_mode():
            type_check._argname(in_types, [f'xs[{i}]' for i in range(len(in_types))])
        first = in_types[0]
        type_check.expect(first.ndim > 0)
        ndim = type_check.eval(first.ndim)
        for x_type in in_types[1:]:
            type_check.expect(first.dtype == x_type.dtype, first.ndim == x_type.ndim)
            for d in range(1, ndim):
                type_check.expect(first.shape[d] == x_type.shape[d])
        if self.length is not None:
            for x_type in in_types:
                type_check.expect(x_type.shape[0] <= self.length)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        first = inputs[0]
        xp = backend.get_array_module(first)
        self._lengths = [len(x) for x in inputs]
        length = max(self._lengths) if self.length is None else self.length
        shape = (len(inputs), length) + first.shape[1:]
        if all(n == length for n in self._lengths):
            return xp.stack(inputs),
        y = xp.empty(shape, first.dtype)
        for i, (x, n) in enumerate(zip(inputs, self._lengths)):
            y[i, :n] = x
            y[i, n:] = self.padding
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        return tuple(get_item(gy, (i, slice(0, self._lengths[i]))) for i in indexes)


def pad_sequence(xs: Sequence[Any], length: int | None = None, padding: Any = 0) -> Variable:
    """Pads sequences of different lengths and stacks them into one array.

    Args:
        xs: A non-empty sequence of Variables or arrays of one dtype whose
            shapes agree except along axis 0 (the sequence length).
        length: The length to pad to; None: the longest length in ``xs``.
            It must not be shorter than any sequence.
        padding: The value of the padded elements.

    Returns:
        Variable: A variable of shape ``(len(xs), length) + xs[0].shape[1:]``.

    .. admonition:: Example

        >>> xs = [np.array([1, 2, 3], dtype=np.float32),
        ...       np.array([4], dtype=np.float32)]
        >>> F.pad_sequence(xs, padding=-1).array
        array([[ 1.,  2.,  3.],
               [ 4., -1., -1.]], dtype=float32)
    """
    return PadSequence(length, padding).apply(xs)[0]
