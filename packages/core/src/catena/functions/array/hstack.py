"""``hstack``: concatenate arrays horizontally (column wise)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.concat import split_views
from catena.functions.array.reshape import reshape
from catena.utils import type_check
from catena.variable import Variable


def check_stack_inputs(in_types: Any, free_axis: Callable[[int], int | None]) -> None:
    """Type check shared by hstack, vstack and dstack.

    Inputs need one dtype and one ndim, and must agree on every axis except
    ``free_axis(ndim)``, the axis they are joined along (None: on every axis,
    for inputs that NumPy first raises to more dimensions).
    """
    type_check.expect(in_types.size() > 0)
    if not type_check.in_light_mode():
        type_check._argname(in_types, [f'xs[{i}]' for i in range(len(in_types))])
    first = in_types[0]
    ndim = type_check.eval(first.ndim)
    joined = free_axis(ndim)
    for x_type in in_types[1:]:
        type_check.expect(first.dtype == x_type.dtype, first.ndim == x_type.ndim)
        for d in range(ndim):
            if d != joined:
                type_check.expect(first.shape[d] == x_type.shape[d])


def backward_stack(gy: Any, axis: int, in_shapes: Sequence[tuple[int, ...]],
                   indexes: Sequence[int]) -> tuple[Variable, ...]:
    """Cuts ``gy`` along ``axis`` into the inputs' gradients (reshaped to their shapes)."""
    ndim = len(gy.shape)
    sizes = [shape[axis] if len(shape) == ndim else 1 for shape in in_shapes]
    pieces = split_views(gy, axis, sizes)
    return tuple(reshape(pieces[i], in_shapes[i]) for i in indexes)


class Hstack(FunctionNode):
    """Concatenates arrays along axis 1 (axis 0 for 0- and 1-dimensional ones)."""

    def check_type_forward(self, in_types: Any) -> None:
        # 0-d inputs become 1-d and are joined on axis 0, as are 1-d ones.
        check_stack_inputs(in_types, lambda ndim: 0 if ndim <= 1 else 1)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._in_shapes = [x.shape for x in inputs]
        return backend.get_array_module(inputs[0]).hstack(inputs),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        axis = 0 if len(self._in_shapes[0]) <= 1 else 1
        return backward_stack(gy, axis, self._in_shapes, indexes)


def hstack(xs: Sequence[Any]) -> Variable:
    """Concatenates Variables or arrays horizontally, as :func:`numpy.hstack`.

    Arrays of two or more dimensions are joined along axis 1, others along
    axis 0 (0-dimensional ones count as one element each).

    Args:
        xs: A non-empty sequence of Variables or arrays of one dtype and one
            number of dimensions, whose shapes agree except along the joined
            axis.

    Returns:
        Variable: The concatenated variable.

    .. admonition:: Example

        >>> x = np.array([[1, 2], [3, 4]], dtype=np.float32)
        >>> y = np.array([[5], [6]], dtype=np.float32)
        >>> F.hstack((x, y)).array
        array([[1., 2., 5.],
               [3., 4., 6.]], dtype=float32)
    """
    return Hstack().apply(xs)[0]
