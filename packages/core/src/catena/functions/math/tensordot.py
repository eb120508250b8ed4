"""``tensordot``: the tensor dot product over given pairs of axes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.array.transpose import transpose
from catena.utils import type_check
from catena.variable import Variable


def _as_axis_list(axes: Any) -> list[int]:
    if isinstance(axes, (int, numpy.integer)) and not isinstance(axes, bool):
        return [int(axes)]
    if isinstance(axes, Sequence) and all(
            isinstance(a, (int, numpy.integer)) and not isinstance(a, bool) for a in axes):
        return [int(a) for a in axes]
    raise TypeError(f'axes must be an int or a pair of ints or sequences of ints; got {axes!r}')


def _contracted_axes(axes: Any, a_ndim: int, b_ndim: int) -> tuple[list[int], list[int]]:
    """Normalizes ``axes`` to the lists of contracted axes of ``a`` and ``b``."""
    if isinstance(axes, (int, numpy.integer)) and not isinstance(axes, bool):
        n = int(axes)
        if not 0 <= n <= min(a_ndim, b_ndim):
            raise ValueError(f'axes={n} must be in [0, min(a.ndim, b.ndim)] = '
                             f'[0, {min(a_ndim, b_ndim)}]')
        return list(range(a_ndim - n, a_ndim)), list(range(n))
    if not isinstance(axes, Sequence):
        raise TypeError(f'axes must be an int or a pair (a_axes, b_axes); got {axes!r}')
    if len(axes) != 2:
        raise ValueError(f'axes must be an int or a pair (a_axes, b_axes); got {axes!r}')
    a_axes, b_axes = _as_axis_list(axes[0]), _as_axis_list(axes[1])
    if len(a_axes) != len(b_axes):
        raise ValueError(f'axes must pair as many axes of a as of b; got {axes!r}')
    for name, listed, ndim in (('a', a_axes, a_ndim), ('b', b_axes, b_ndim)):
        for axis in listed:
            if not -ndim <= axis < ndim:
                raise ValueError(f'axes: axis {axis} is out of range for {name} with '
                                 f'{ndim} dimensions')
        if len({a % ndim for a in listed}) != len(listed):
            raise ValueError(f'axes: the axes of {name} repeat; got {listed}')
    return [a % a_ndim for a in a_axes], [b % b_ndim for b in b_axes]


def _inverse(permutation: list[int]) -> list[int]:
    inverse = [0] * len(permutation)
    for position, axis in enumerate(permutation):
        inverse[axis] = position
    return inverse


class TensorDot(FunctionNode):
    """``numpy.tensordot(a, b, (a_axes, b_axes))``.

    The result has the dtype NumPy promotes the inputs to, or ``dtype``
    when given.
    """

    def __init__(self, a_axes: Sequence[int], b_axes: Sequence[int],
                 dtype: Any = None) -> None:
        self.a_axes = list(a_axes)
        self.b_axes = list(b_axes)
        self.dtype = None if dtype is None else numpy.dtype(dtype)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('a', 'b'))
        a_type, b_type = in_types
        type_check.expect(a_type.dtype.kind == 'f', b_type.dtype.kind == 'f')
        for a_axis, b_axis in zip(self.a_axes, self.b_axes):
            type_check.expect(a_type.shape[a_axis] == b_type.shape[b_axis])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        xp = backend.get_array_module(a)
        y = xp.asarray(xp.tensordot(a, b, (self.a_axes, self.b_axes)))
        if self.dtype is not None and y.dtype != self.dtype:
            y = y.astype(self.dtype)
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        a, b = self.get_retained_inputs()
        gy, = grad_outputs
        a_axes, b_axes = self.a_axes, self.b_axes
        a_free = [i for i in range(a.ndim) if i not in a_axes]
        b_free = [i for i in range(b.ndim) if i not in b_axes]
        n_a_free = len(a_free)
        ret = []
        if 0 in indexes:
            # Axes of the result: a_free, then b's contracted axes in b's order.
            ga = TensorDot(list(range(n_a_free, gy.ndim)), b_free, a.dtype).apply((gy, b))[0]
            layout = a_free + [a_axes[b_axes.index(s)] for s in sorted(b_axes)]
            ret.append(transpose(ga, _inverse(layout)))
        if 1 in indexes:
            gb = TensorDot(a_free, list(range(n_a_free)), b.dtype).apply((a, gy))[0]
            layout = [b_axes[a_axes.index(s)] for s in sorted(a_axes)] + b_free
            ret.append(transpose(gb, _inverse(layout)))
        return tuple(ret)


def tensordot(a: Any, b: Any, axes: Any = 2) -> Variable:
    """The tensor dot product of ``a`` and ``b``, as :func:`numpy.tensordot`.

    Args:
        a: A Variable or array of floating point type.
        b: A Variable or array of floating point type; with another dtype
            than ``a``, the result has the promoted one (as in NumPy) and
            each gradient its input's dtype.
        axes: An int ``n`` (the last ``n`` axes of ``a`` with the first
            ``n`` of ``b``), or a pair ``(a_axes, b_axes)`` of ints or
            sequences of ints to sum over, pairwise.

    Returns:
        Variable: The product; its axes are the free axes of ``a`` followed
        by those of ``b``.

    Raises:
        ValueError: ``axes`` is malformed or pairs axes of unequal lengths.

    .. admonition:: Example

        >>> a = np.arange(6, dtype=np.float32).reshape(2, 3)
        >>> b = np.ones((3, 2), dtype=np.float32)
        >>> F.tensordot(a, b, axes=1).array
        array([[ 3.,  3.],
               [12., 12.]], dtype=float32)
    """
    try:
        a_ndim, b_ndim = a.ndim, b.ndim
    except AttributeError:
        _arguments.blame('tensordot', a=a, b=b)
        raise
    a_axes, b_axes = _contracted_axes(axes, a_ndim, b_ndim)
    for a_axis, b_axis in zip(a_axes, b_axes):
        if a.shape[a_axis] != b.shape[b_axis]:
            raise ValueError(f'tensordot: axis {a_axis} of a (length {a.shape[a_axis]}) and '
                             f'axis {b_axis} of b (length {b.shape[b_axis]}) differ in length')
    return TensorDot(a_axes, b_axes).apply((a, b))[0]
