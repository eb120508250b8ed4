"""``split_axis``: split an array into views along an axis."""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


class SplitAxis(FunctionNode):
    """Splits an array along an axis into views (equal sections or at indices).

    Attributes:
        indices: The split positions (None when splitting into sections).
        sections: The number of equal sections (None when splitting at indices).
        axis: The axis.
    """

    def __init__(self, indices_or_sections: Any, axis: Any) -> None:
        if type(axis) is not int and not isinstance(axis, numbers.Integral):
            raise TypeError(f'axis must be an int; got {axis!r}')
        self.axis: int = int(axis)
        self.indices: tuple[int, ...] | None = None
        self.sections: int | None = None
        if type(indices_or_sections) is int or isinstance(indices_or_sections,
                                                          numbers.Integral):
            if indices_or_sections <= 0:
                raise ValueError(f'the number of sections must be positive; got '
                                 f'{indices_or_sections}')
            self.sections = int(indices_or_sections)
        elif isinstance(indices_or_sections, Iterable) or hasattr(indices_or_sections, 'tolist'):
            if hasattr(indices_or_sections, 'tolist'):
                indices_or_sections = indices_or_sections.tolist()
            indices = tuple(indices_or_sections)
            if not all(isinstance(i, numbers.Integral) for i in indices):
                raise TypeError(f'indices_or_sections must be an int or a sequence of ints; '
                                f'got {indices!r}')
            self.indices = tuple(int(i) for i in indices)
        else:
            raise TypeError(f'indices_or_sections must be an int or a sequence of ints; got '
                            f'{indices_or_sections!r}')

    @property
    def indices_or_sections(self) -> Any:
        return self.sections if self.indices is None else self.indices

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        if self.axis >= 0:
            type_check.expect(self.axis < x_type.ndim)
        else:
            type_check.expect(-self.axis <= x_type.ndim)
        length = x_type.shape[self.axis]
        if self.sections is not None:
            type_check.expect(length % type_check.make_variable(self.sections, 'sections') == 0)
        elif self.indices:
            for name, index in (('min(indices)', min(self.indices)),
                                ('max(indices)', max(self.indices))):
                index = type_check.make_variable(index, name)
                type_check.expect(-length <= index, index <= length)

    def _bounds(self, length: int) -> list[int]:
        if self.sections is not None:
            step = length // self.sections
            return [step * i for i in range(self.sections + 1)]
        assert self.indices is not None
        bounds = [0] + [i + length if i < 0 else i for i in self.indices] + [length]
        for left, right in zip(bounds, bounds[1:]):
            if left > right:
                raise ValueError(f'indices must be in increasing order (negative ones count '
                                 f'from the end of axis {self.axis} of length {length}); '
                                 f'got {self.indices}')
        return bounds

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._axis = axis = self.axis % x.ndim
        self._bounds_used = bounds = self._bounds(x.shape[axis])
        self._shape = x.shape
        lead = (slice(None),) * axis
        return tuple([x[lead + (slice(left, right),)]
                      for left, right in zip(bounds, bounds[1:])])

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        grads = list(grad_outputs)
        if any(gy is None for gy in grads):
            given = next(g for g in grads if g is not None)
            xp = backend.get_array_module(given)
            shape = list(self._shape)
            bounds = self._bounds_used
            for i, gy in enumerate(grads):
                if gy is None:
                    shape[self._axis] = bounds[i + 1] - bounds[i]
                    grads[i] = xp.zeros(tuple(shape), given.dtype)
        return SplitAxisGrad(self._axis).apply(grads)


class SplitAxisGrad(FunctionNode):
    """The gradient of split_axis: concatenates the pieces along ``axis``."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(inputs[0])
        self._indices = []
        position = 0
        for gy in inputs[:-1]:
            position += gy.shape[self.axis]
            self._indices.append(position)
        return xp.concatenate(inputs, axis=self.axis),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return split_axis(grad_outputs[0], self._indices, self.axis)


def split_axis(x: Any, indices_or_sections: Any, axis: int,
               force_tuple: bool = True) -> tuple[Variable, ...] | Variable:
    """Splits ``x`` into views along ``axis``.

    Args:
        x: A Variable or array.
        indices_or_sections: An int ``n`` splits ``x`` into ``n`` sections of
            equal length (it must divide ``x.shape[axis]``); a 1-D sequence
            of sorted ints gives the positions where ``x`` is split, as
            :func:`numpy.split`.
        axis: The axis to split along.
        force_tuple: If True (the default), always return a tuple; if False
            and the split makes a single piece, return that Variable.

    Returns:
        tuple of Variable or Variable: The pieces, views of ``x``.

    .. admonition:: Example

        >>> x = np.arange(6, dtype=np.float32).reshape(2, 3)
        >>> [y.shape for y in F.split_axis(x, [1], axis=1)]
        [(2, 1), (2, 2)]
        >>> [y.shape for y in F.split_axis(x, 2, axis=0)]
        [(1, 3), (1, 3)]
    """
    ys = SplitAxis(indices_or_sections, axis).apply((x,))
    if force_tuple or len(ys) != 1:
        return ys
    return ys[0]
