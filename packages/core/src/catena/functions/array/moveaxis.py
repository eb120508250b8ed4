"""``moveaxis``: move axes of an array to new positions."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


def _axis_tuple(value: Any, name: str) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    if isinstance(value, (tuple, list)) and all(
            isinstance(a, int) and not isinstance(a, bool) for a in value):
        if len(set(value)) != len(value):
            raise ValueError(f'{name} contains repeated axes: {value!r}')
        return tuple(value)
    raise TypeError(f'{name} must be an int or a tuple of ints; got {value!r}')


def _expect_axes(x_type: Any, axes: tuple[int, ...], name: str) -> None:
    for axis in axes:
        if axis >= 0:
            type_check.expect(x_type.ndim > axis)
        else:
            type_check.expect(x_type.ndim >= -axis)
    ndim = type_check.eval(x_type.ndim)
    if len({axis % ndim for axis in axes}) != len(axes):
        raise type_check.InvalidType(f'{name} names distinct axes of x',
                                     f'{name} = {axes} repeats an axis of x (x.ndim = {ndim})')


class Moveaxis(FunctionNode):
    """Moves the ``source`` axes to the ``destination`` positions (a view)."""

    def __init__(self, source: Any, destination: Any) -> None:
        self.source = _axis_tuple(source, 'source')
        self.destination = _axis_tuple(destination, 'destination')
        if len(self.source) != len(self.destination):
            raise ValueError(f'source and destination must have the same number of axes; '
                             f'got source {source!r} and destination {destination!r}')

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        _expect_axes(x_type, self.source, 'source')
        _expect_axes(x_type, self.destination, 'destination')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        return backend.get_array_module(x).moveaxis(x, self.source, self.destination),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return Moveaxis(self.destination, self.source).apply(grad_outputs)


def moveaxis(x: Any, source: Any, destination: Any) -> Variable:
    """Moves the axes ``source`` of ``x`` to the positions ``destination``.

    The other axes keep their order, as in :func:`numpy.moveaxis`.

    Args:
        x: A Variable or array.
        source: The axes to move, an int or a tuple of ints.
        destination: Their positions in the output, an int or a tuple of ints
            of the same length.

    Returns:
        Variable: The variable with its axes moved.

    .. admonition:: Example

        >>> x = np.zeros((2, 3, 4, 5), dtype=np.float32)
        >>> F.moveaxis(x, 0, -1).shape
        (3, 4, 5, 2)
        >>> F.moveaxis(x, (0, 1), (-1, -2)).shape
        (4, 5, 3, 2)
    """
    return Moveaxis(source, destination).apply((x,))[0]
