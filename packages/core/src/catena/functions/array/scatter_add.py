"""``scatter_add``: add values to selected elements of a copy of an array."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.get_item import get_item
from catena.utils import type_check
from catena.variable import Variable


def _normalize_slices(slices: Any) -> tuple[Any, ...]:
    if isinstance(slices, list) and all(isinstance(s, int) for s in slices):
        slices = (slices,)  # a list of ints is one integer-array index
    elif not isinstance(slices, tuple):
        slices = (slices,)
    result = []
    for s in slices:
        if isinstance(s, Variable):
            s = s.array
        elif isinstance(s, list):
            # An empty list selects nothing; NumPy would make it a float array.
            s = numpy.asarray(s) if s else numpy.empty(0, numpy.intp)
        if not (s is None or s is Ellipsis or isinstance(s, (int, numpy.integer, slice))
                or hasattr(s, 'shape')):
            raise TypeError(f'slices may hold ints, slices, None, Ellipsis and integer or '
                            f'boolean arrays; got {type(s).__name__}')
        result.append(s)
    if sum(1 for s in result if s is Ellipsis) > 1:
        raise ValueError(f'slices may hold one Ellipsis at most; got {slices!r}')
    return tuple(result)


class ScatterAdd(FunctionNode):
    """``y = a.copy(); y[slices] += b``, where repeated indices accumulate."""

    def __init__(self, slices: Any) -> None:
        self.slices = _normalize_slices(slices)
        self._advanced = any(hasattr(s, 'shape') for s in self.slices)
        # With a trailing Ellipsis, basic indexing gives a view even when it selects
        # a single element (rather than a scalar copy).
        self._view_key = self.slices
        if not any(s is Ellipsis for s in self.slices):
            self._view_key += (Ellipsis,)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('a', 'b'))
        a_type, b_type = in_types
        n_indexing = sum(1 for s in self.slices if s is not None and s is not Ellipsis)
        type_check.expect(a_type.ndim >= n_indexing, a_type.dtype == b_type.dtype)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = inputs
        y = a.copy()
        target = y[self.slices if self._advanced else self._view_key]
        if target.shape != b.shape:
            raise ValueError(f'scatter_add: b must have the shape of a[slices], '
                             f'{target.shape}; got {b.shape} (b is not broadcast)')
        if self._advanced:
            backend.get_array_module(a).add.at(y, self.slices, b)
        else:
            target += b  # a view: basic indexing selects each element once
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        ret = []
        for i in indexes:
            ret.append(gy if i == 0 else get_item(gy, self.slices))
        return tuple(ret)


def scatter_add(a: Any, slices: Any, b: Any) -> Variable:
    """Adds ``b`` to the elements of a copy of ``a`` that ``slices`` selects.

    Unlike ``a[slices] += b`` with NumPy, elements selected several times
    by integer-array indices receive every addition. ``a`` is not modified.

    Args:
        a: A Variable or array.
        slices: An int, slice, None, Ellipsis, integer or boolean array, or a
            tuple of them, as in :func:`get_item`.
        b: A Variable or array of the shape of ``a[slices]`` and the dtype of
            ``a``.

    Returns:
        Variable: The sum, of the shape of ``a``.

    .. admonition:: Example

        >>> a = np.zeros((2, 3), dtype=np.float32)
        >>> b = np.ones((2, 2), dtype=np.float32)
        >>> F.scatter_add(a, (slice(None), [0, 0]), b).array
        array([[2., 0., 0.],
               [2., 0., 0.]], dtype=float32)
    """
    return ScatterAdd(slices).apply((a, b))[0]
