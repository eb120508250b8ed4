"""``dstack``: concatenate arrays along the third axis (depth wise)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.hstack import backward_stack, check_stack_inputs
from catena.variable import Variable


class Dstack(FunctionNode):
    """Concatenates arrays along axis 2 after raising them to three dimensions."""

    def check_type_forward(self, in_types: Any) -> None:
        check_stack_inputs(in_types, lambda ndim: 2 if ndim >= 3 else None)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._in_shapes = [x.shape for x in inputs]
        return backend.get_array_module(inputs[0]).dstack(inputs),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return backward_stack(grad_outputs[0], 2, self._in_shapes, indexes)


def dstack(xs: Sequence[Any]) -> Variable:
    """Concatenates Variables or arrays along the third axis, as :func:`numpy.dstack`.

    Arrays are joined along axis 2 after raising them to three dimensions:
    shape ``()`` becomes ``(1, 1, 1)``, ``(N,)`` becomes ``(1, N, 1)`` and
    ``(M, N)`` becomes ``(M, N, 1)``.

    Args:
        xs: A non-empty sequence of Variables or arrays of one dtype and one
            number of dimensions, whose shapes agree except along axis 2
            (and agree entirely when they have fewer than three dimensions).

    Returns:
        Variable: The concatenated variable.

    .. admonition:: Example

        >>> x = np.array([1, 2], dtype=np.float32)
        >>> y = np.array([3, 4], dtype=np.float32)
        >>> F.dstack((x, y)).array
        array([[[1., 3.],
                [2., 4.]]], dtype=float32)
    """
    return Dstack().apply(xs)[0]
