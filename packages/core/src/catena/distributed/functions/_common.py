"""What the communication functions share: argument checks, anchors and zero gradients.

A communication node must take part in backprop on every rank or on none:
a rank that skips its part of the backward communication leaves its peers
waiting forever. So every node gets one extra input, an *anchor*: a
zero-dimensional float32 Variable that requires a gradient. Its output then
always joins the graph (while backprop is enabled), even on a rank whose
real inputs need no gradient or that has no real input at all (a receiver,
a non-root rank of ``bcast``). The anchor's gradient is a zero, thrown away.
"""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.distributed.communicators.base import CommunicatorBase
from catena.variable import Variable

DELEGATE_DTYPE = numpy.float32


def check_communicator(comm: Any, function: str) -> CommunicatorBase:
    """Returns ``comm`` when it is a communicator; raises TypeError otherwise."""
    if not isinstance(comm, CommunicatorBase):
        raise TypeError(f'{function}: the communicator must be a catena.distributed '
                        f'communicator, got {type(comm).__name__}')
    return comm


def check_rank(comm: CommunicatorBase, rank: Any, name: str, function: str) -> int:
    """Returns ``rank`` as an int when it names a rank of ``comm``; raises ValueError otherwise."""
    if isinstance(rank, bool) or not isinstance(rank, (int, numpy.integer)) \
            or not 0 <= rank < comm.size:
        raise ValueError(f'{function}: {name} must be a rank in [0, {comm.size}), got {rank!r}')
    return int(rank)


def check_tag(tag: Any, function: str) -> int:
    """Returns ``tag`` as an int when it is a valid MPI tag; raises ValueError otherwise."""
    if isinstance(tag, bool) or not isinstance(tag, (int, numpy.integer)) or tag < 0:
        raise ValueError(f'{function}: tag must be a non-negative int, got {tag!r}')
    return int(tag)


def array_of(x: Any) -> Any:
    """The array of a Variable, or ``x`` itself."""
    return x.array if isinstance(x, Variable) else x


def zeros_scalar_like(array: Any = None) -> Any:
    """A zero-dimensional float32 zero on the device of ``array`` (NumPy when None)."""
    if array is None:
        return numpy.zeros((), dtype=DELEGATE_DTYPE)
    return backend.get_array_module(array).zeros_like(array, dtype=DELEGATE_DTYPE, shape=())


def anchor(like: Any = None) -> Variable:
    """A fresh anchor input (see the module docstring) on the device of ``like``."""
    return Variable(zeros_scalar_like(array_of(like)), requires_grad=True)


def zero_grad(array: Any) -> Variable:
    """A zero gradient of the shape, dtype and device of ``array``."""
    return Variable(backend.get_array_module(array).zeros_like(array), requires_grad=False)


class SpecOf:
    """The shape and dtype of an array, with a zero array of them on demand."""

    __slots__ = ('shape', 'dtype', 'xp')

    def __init__(self, array: Any) -> None:
        self.shape = array.shape
        self.dtype = array.dtype
        self.xp = backend.get_array_module(array)

    def zeros(self) -> Any:
        return self.xp.zeros(self.shape, dtype=self.dtype)
