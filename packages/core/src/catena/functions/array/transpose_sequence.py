"""``transpose_sequence``: turn a batch of sequences into a sequence of batches."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.utils import type_check
from catena.variable import Variable


def _transpose(arrays: tuple[Any, ...], n_out: int, unit: tuple[int, ...],
               dtype: Any) -> tuple[Any, ...]:
    """Row ``t`` of output ``i`` is row ``i`` of input ``t``, for ``n_out`` outputs.

    The inputs must have non-increasing lengths; output ``t`` then holds row
    ``t`` of every input longer than ``t`` (and outputs past the longest input are empty).
    """
    lengths = numpy.array([len(a) for a in arrays], dtype=numpy.intp)
    steps = numpy.arange(n_out)
    mask = lengths[None, :] > steps[:, None]  # mask[t, i]: input i has a row t
    counts = mask.sum(axis=1).tolist()
    offsets = numpy.concatenate(([0], numpy.cumsum(lengths[:-1])))
    order = (offsets[None, :] + steps[:, None])[mask]

    xp = backend.get_array_module(arrays[0])
    stacked = xp.concatenate(arrays, axis=0) if len(arrays) > 1 else arrays[0]
    gathered = stacked[xp.asarray(order)] if order.size else xp.empty((0,) + unit, dtype)
    outputs = []
    start = 0
    for count in counts:
        outputs.append(gathered[start:start + count])
        start += count
    return tuple(outputs)


class TransposeSequence(FunctionNode):
    """Transposes a list of arrays sorted by non-increasing length (see transpose_sequence)."""

    def __init__(self, length: int) -> None:
        self._length = length  # the number of outputs

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        type_check._argname(in_types, tuple(f'xs[{i}]' for i in range(len(in_types))))
        first = in_types[0]
        type_check.expect(first.ndim >= 1)
        for prev, curr in zip(in_types, in_types[1:]):
            type_check.expect(
                prev.shape[0] >= curr.shape[0],
                curr.shape[1:] == first.shape[1:],
                curr.dtype == first.dtype,
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        first = inputs[0]
        self._unit = first.shape[1:]
        self._dtype = first.dtype
        self._xp = backend.get_array_module(first)
        self._n_inputs = len(inputs)
        outputs = _transpose(inputs, self._length, self._unit, self._dtype)
        self._out_shapes = [y.shape for y in outputs]
        return outputs

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        grads = []
        for gy, shape in zip(grad_outputs, self._out_shapes):
            if gy is None:
                gy = self._xp.zeros(shape, self._dtype)
            grads.append(gy)
        return TransposeSequence(self._n_inputs).apply(grads)


def transpose_sequence(xs: Any) -> tuple[Variable, ...]:
    """Transposes a list of sequences sorted by non-increasing length.

    Given ``xs[i]`` of shape ``(L_i, ...)`` with ``L_0 >= L_1 >= ...``, it
    returns ``L_0`` variables; the ``t``-th has one row for every sequence
    longer than ``t``: ``ys[t][i] = xs[i][t]``. Applied to the result it
    gives back the original sequences, which is how recurrent networks turn
    a batch of sequences into a sequence of (shrinking) batches and back.

    Args:
        xs: A list or tuple of Variables or arrays of the same dtype and
            trailing shape, sorted by non-increasing length.

    Returns:
        tuple of Variable: The transposed sequences (empty when ``xs`` is
        empty).

    .. admonition:: Example

        >>> xs = [np.array([1, 2, 3], dtype=np.float32),
        ...       np.array([4, 5], dtype=np.float32)]
        >>> [y.array.tolist() for y in F.transpose_sequence(xs)]
        [[1.0, 4.0], [2.0, 5.0], [3.0]]
    """
    if not xs:
        return ()
    first = _arguments.array('transpose_sequence', 'xs[0]', xs[0])
    if first.ndim == 0:
        raise ValueError('transpose_sequence: xs[0] must have at least one axis (the time '
                         'axis); got a 0-d array')
    return TransposeSequence(len(first)).apply(xs)
