"""``transpose``: permute the axes of an array."""

from __future__ import annotations

from typing import Any

import numpy

from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.utils import type_check
from catena.variable import Variable


class Transpose(FunctionNode):
    """Permutes the axes of an array (reverses them when ``axes`` is None)."""

    def __init__(self, axes: Any = None) -> None:
        try:
            self.axes = None if axes is None else tuple(axes)
        except TypeError:
            raise _arguments.wrong_kind('transpose', 'axes', 'None or a sequence of ints',
                                        axes) from None

    @property
    def label(self) -> str:
        return 'Transpose'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        if self.axes is not None:
            type_check.expect(in_types[0].ndim == len(self.axes))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        return x.transpose(self.axes),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        if self.axes is None:
            return transpose(gy),
        inverse = tuple(numpy.argsort([a % len(self.axes) for a in self.axes]).tolist())
        return transpose(gy, inverse),


def transpose(x: Any, axes: Any = None) -> Variable:
    """Permutes the axes of ``x``.

    Args:
        x: A Variable or array.
        axes: A permutation of the axes, or None to reverse them.

    Returns:
        Variable: The transposed variable.
    """
    try:
        return Transpose(axes).apply((x,))[0]
    except AttributeError:
        _arguments.blame('transpose', x=x)
        raise


def swap_last_two(x: Any) -> Variable:
    """Returns ``x`` with its last two axes swapped (a matrix transpose per batch)."""
    axes = list(range(x.ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    return transpose(x, axes)
