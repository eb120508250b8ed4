"""``vstack``: concatenate arrays vertically (row wise)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.hstack import backward_stack, check_stack_inputs
from catena.variable import Variable


class Vstack(FunctionNode):
    """Concatenates arrays along axis 0 after raising them to two dimensions."""

    def check_type_forward(self, in_types: Any) -> None:
        check_stack_inputs(in_types, lambda ndim: 0 if ndim >= 2 else None)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._in_shapes = [x.shape for x in inputs]
        return backend.get_array_module(inputs[0]).vstack(inputs),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return backward_stack(grad_outputs[0], 0, self._in_shapes, indexes)


def vstack(xs: Sequence[Any]) -> Variable:
    """Concatenates Variables or arrays vertically, as :func:`numpy.vstack`.

    Arrays are joined along axis 0; 0- and 1-dimensional ones first become
    rows of shape ``(1, N)``.

    Args:
        xs: A non-empty sequence of Variables or arrays of one dtype and one
            number of dimensions, whose shapes agree except along axis 0
            (and agree entirely when they have fewer than two dimensions).

    Returns:
        Variable: The concatenated variable.

    .. admonition:: Example

        >>> x = np.array([1, 2, 3], dtype=np.float32)
        >>> y = np.array([4, 5, 6], dtype=np.float32)
        >>> F.vstack((x, y)).array
        array([[1., 2., 3.],
               [4., 5., 6.]], dtype=float32)
    """
    return Vstack().apply(xs)[0]

