"""``get_item``: NumPy-style indexing (``x[slices]``) as a function."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import force_array, type_check
from catena.variable import Variable


def _is_advanced(slices: tuple[Any, ...]) -> bool:
    return any(isinstance(s, (list, numpy.ndarray)) or hasattr(s, '__array__') for s in slices)


def _normalize(slices: Any) -> tuple[Any, ...]:
    if isinstance(slices, list) and not all(
            isinstance(s, (int, numpy.integer)) for s in slices):
        # As in Chainer (and NumPy before 1.23): a list holding anything but
        # ints is a tuple of indices, e.g. [0, slice(None)] or [[0, 1], [1, 2]].
        slices = tuple(slices)
    if not isinstance(slices, tuple):
        slices = (slices,)
    result = []
    for s in slices:
        if isinstance(s, Variable):
            s = s.array
        if isinstance(s, list):
            # An empty list selects nothing; NumPy would make it a float array.
            s = numpy.asarray(s) if s else numpy.empty(0, numpy.intp)
        if not (s is None or s is Ellipsis or isinstance(s, (int, numpy.integer, slice))
                or hasattr(s, 'shape')):
            raise TypeError(f'an index must be an int, a slice, None, Ellipsis or an integer '
                            f'or boolean array; got {type(s).__name__}')
        result.append(s)
    return tuple(result)


class GetItem(FunctionNode):
    """Extracts elements with basic or advanced (integer/boolean array) indexing."""

    def __init__(self, slices: Any) -> None:
        self.slices = _normalize(slices)
        # A trailing Ellipsis does not change what is selected, but makes a single
        # element come back as a 0-d array of the input's type, not a NumPy scalar.
        self._key = self.slices
        if not any(s is Ellipsis for s in self.slices):
            self._key += (Ellipsis,)

    @property
    def label(self) -> str:
        return 'GetItem'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        n_indexing = sum(1 for s in self.slices if s is not None and s is not Ellipsis)
        type_check.expect(in_types[0].ndim >= n_indexing)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        self._in_dtype = x.dtype
        return force_array(x[self._key]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return GetItemGrad(self.slices, self._in_shape).apply(grad_outputs)


class GetItemGrad(FunctionNode):
    """Scatters (adds) a gradient back to the positions ``slices`` selected."""

    def __init__(self, slices: tuple[Any, ...], in_shape: tuple[int, ...]) -> None:
        self.slices = slices
        self._in_shape = in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self._in_shape, gy.dtype)
        if _is_advanced(self.slices):
            xp.add.at(gx, self.slices, gy)
        else:
            gx[self.slices] = gy
        return gx,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return get_item(grad_outputs[0], self.slices),


def get_item(x: Any, slices: Any) -> Variable:
    """Extracts elements of ``x`` as ``x[slices]`` does for NumPy arrays.

    Args:
        x: A Variable or array.
        slices: An int, slice, None, Ellipsis, integer or boolean array, or a
            tuple of them. A list of ints is one integer array index; any
            other list is read as a tuple, as Chainer reads it.

    Returns:
        Variable: The selected elements.
    """
    return GetItem(slices).apply((x,))[0]
