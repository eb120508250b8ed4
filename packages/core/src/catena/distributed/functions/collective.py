"""Differentiable collectives: ``bcast``, ``gather``, ``scatter``, ``allgather``, ``alltoall``.

Each one's backward runs the transposed communication on the gradients:

============  =======================================================
forward       backward
============  =======================================================
bcast         the gradients of every rank are summed on the root
gather        the root scatters the gradients back to their ranks
scatter       the gradients are gathered on the root
allgather     every rank sums the gradients of its array (alltoall)
alltoall      alltoall of the gradients
============  =======================================================

All ranks must call backprop through the same collectives, in the same
order; a rank whose outputs get no gradient at all never runs its part, and
the others then wait for it forever. Outputs that get no gradient on a rank
whose other outputs do take part with zeros.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena import backend
from catena.distributed.communicators.base import CommunicatorBase
from catena.distributed.functions import _common
from catena.function_node import FunctionNode
from catena.variable import Variable


def _zeros_for_anchor(spec: _common.SpecOf) -> Variable:
    return Variable(spec.zeros(), requires_grad=False)


def _grads_or_zeros(grad_outputs: Sequence[Any], specs: Sequence[_common.SpecOf]) -> list[Any]:
    return [spec.zeros() if gy is None else gy.array for gy, spec in zip(grad_outputs, specs)]


def _sum(arrays: Sequence[Any]) -> Any:
    total = arrays[0].copy()
    for array in arrays[1:]:
        total += array
    return total


class Bcast(FunctionNode):
    """Inputs ``(x, anchor)`` on the root, ``(anchor,)`` elsewhere; output: root's ``x``."""

    def __init__(self, comm: CommunicatorBase, root: int) -> None:
        self.comm = comm
        self.root = root

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._anchor_spec = _common.SpecOf(inputs[-1])
        if self.comm.rank == self.root:
            x = inputs[0]
            self._x_device = backend.get_device_from_array(x)
            # A copy: the output must not share memory with the input.
            return self.comm.bcast(x, self.root).copy(),
        return self.comm.bcast(None, self.root),

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        gathered = self.comm.gather(gy.array, self.root)
        anchor_grad = _zeros_for_anchor(self._anchor_spec)
        if self.comm.rank != self.root:
            return anchor_grad,
        assert gathered is not None
        gx = self._x_device.send(_sum(gathered))
        return Variable(gx, requires_grad=False), anchor_grad


class Gather(FunctionNode):
    """Inputs ``(x, anchor)``; outputs: every rank's ``x`` on the root, a delegate elsewhere."""

    def __init__(self, comm: CommunicatorBase, root: int) -> None:
        self.comm = comm
        self.root = root

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, anchor = inputs
        self._x_spec = _common.SpecOf(x)
        self._x_device = backend.get_device_from_array(x)
        self._anchor_spec = _common.SpecOf(anchor)
        ys = self.comm.gather(x, self.root)
        if self.comm.rank == self.root:
            assert ys is not None
            self._output_specs = [_common.SpecOf(y) for y in ys]
            return tuple(ys)
        return _common.zeros_scalar_like(anchor),

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        if self.comm.rank == self.root:
            gx = self.comm.scatter(_grads_or_zeros(grad_outputs, self._output_specs), self.root)
        else:
            gx = self.comm.scatter(None, self.root)
        gx = self._x_device.send(gx.astype(self._x_spec.dtype, copy=False))
        return Variable(gx, requires_grad=False), _zeros_for_anchor(self._anchor_spec)


class Scatter(FunctionNode):
    """Inputs ``(*xs, anchor)`` on the root, ``(anchor,)`` elsewhere; output: ``xs[rank]``."""

    def __init__(self, comm: CommunicatorBase, root: int) -> None:
        self.comm = comm
        self.root = root

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        *xs, anchor = inputs
        self._anchor_spec = _common.SpecOf(anchor)
        if self.comm.rank == self.root:
            self._x_specs = [_common.SpecOf(x) for x in xs]
            self._x_devices = [backend.get_device_from_array(x) for x in xs]
            return self.comm.scatter(list(xs), self.root),
        return self.comm.scatter(None, self.root),

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        gathered = self.comm.gather(gy.array, self.root)
        anchor_grad = _zeros_for_anchor(self._anchor_spec)
        if self.comm.rank != self.root:
            return anchor_grad,
        assert gathered is not None
        gxs = [Variable(device.send(g.astype(spec.dtype, copy=False)), requires_grad=False)
               for g, spec, device in zip(gathered, self._x_specs, self._x_devices)]
        return (*gxs, anchor_grad)


class Allgather(FunctionNode):
    """Inputs ``(x, anchor)``; outputs: every rank's ``x``, in rank order."""

    def __init__(self, comm: CommunicatorBase) -> None:
        self.comm = comm

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, anchor = inputs
        self._x_device = backend.get_device_from_array(x)
        self._anchor_spec = _common.SpecOf(anchor)
        ys = self.comm.allgather(x)
        self._output_specs = [_common.SpecOf(y) for y in ys]
        return tuple(ys)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        # Rank r's output s came from rank s: send its gradient there, and sum
        # what comes back for this rank's x.
        mine = self.comm.alltoall(_grads_or_zeros(grad_outputs, self._output_specs))
        gx = self._x_device.send(_sum(mine))
        return Variable(gx, requires_grad=False), _zeros_for_anchor(self._anchor_spec)


class Alltoall(FunctionNode):
    """Inputs ``(*xs, anchor)``, ``xs[i]`` for rank ``i``; outputs: what each rank sent here."""

    def __init__(self, comm: CommunicatorBase) -> None:
        self.comm = comm

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        *xs, anchor = inputs
        self._x_specs = [_common.SpecOf(x) for x in xs]
        self._x_devices = [backend.get_device_from_array(x) for x in xs]
        self._anchor_spec = _common.SpecOf(anchor)
        ys = self.comm.alltoall(list(xs))
        self._output_specs = [_common.SpecOf(y) for y in ys]
        return tuple(ys)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        back = self.comm.alltoall(_grads_or_zeros(grad_outputs, self._output_specs))
        gxs = [Variable(device.send(g.astype(spec.dtype, copy=False)), requires_grad=False)
               for g, spec, device in zip(back, self._x_specs, self._x_devices)]
        return (*gxs, _zeros_for_anchor(self._anchor_spec))


# ---------------------------------------------------------------------------
# Wrappers
# ---------------------------------------------------------------------------

def _check_array_like(x: Any, name: str, function: str) -> None:
    if x is None or not hasattr(_common.array_of(x), 'shape'):
        raise TypeError(f'{function}: {name} must be a Variable or an array, got '
                        f'{type(x).__name__}')


def _check_sequence(xs: Any, size: int, name: str, function: str) -> list[Any]:
    if not isinstance(xs, (tuple, list)) or len(xs) != size:
        got = type(xs).__name__ + (f' of length {len(xs)}' if isinstance(xs, (tuple, list))
                                   else '')
        raise TypeError(f'{function}: {name} must be a tuple or list of {size} Variables or '
                        f'arrays (one per rank), got {got}')
    for i, x in enumerate(xs):
        _check_array_like(x, f'{name}[{i}]', function)
    return list(xs)


def bcast(comm: CommunicatorBase, x: Any, root: int = 0) -> Variable:
    """Broadcasts the root's ``x`` to every rank; differentiable.

    Backward sums the gradients of all ranks' outputs on the root, as the
    gradient of the root's ``x``.

    Args:
        comm: The communicator.
        x: The Variable or array to send, on the root; ignored (may be None)
            on the other ranks.
        root: The rank that sends.

    Returns:
        Variable: The root's ``x``, on every rank.
    """
    comm = _common.check_communicator(comm, 'bcast')
    root = _common.check_rank(comm, root, 'root', 'bcast')
    if comm.rank == root:
        _check_array_like(x, 'x', 'bcast')
        inputs: tuple[Any, ...] = (x, _common.anchor(x))
    else:
        inputs = (_common.anchor(),)
    return Bcast(comm, root).apply(inputs)[0]


def gather(comm: CommunicatorBase, x: Any, root: int = 0) -> Any:
    """Gathers every rank's ``x`` on the root; differentiable.

    Backward scatters the gradients of the root's outputs back to the ranks
    they came from.

    Args:
        comm: The communicator.
        x: This rank's Variable or array (shapes may differ between ranks).
        root: The rank that receives.

    Returns:
        On the root, a tuple of Variables, one per rank in rank order.
        Elsewhere, a delegate variable (a zero-dimensional zero): call its
        ``backward`` (or pass it to :func:`~catena.distributed.functions.recv`
        or :func:`~catena.distributed.functions.pseudo_connect`) so that
        this rank takes part in the backward scatter.
    """
    comm = _common.check_communicator(comm, 'gather')
    root = _common.check_rank(comm, root, 'root', 'gather')
    _check_array_like(x, 'x', 'gather')
    ys = Gather(comm, root).apply((x, _common.anchor(x)))
    if comm.rank == root:
        return ys
    delegate = ys[0]
    delegate.name = 'delegate_variable'
    return delegate


def scatter(comm: CommunicatorBase, xs: Any, root: int = 0) -> Variable:
    """Sends ``xs[i]`` of the root to rank ``i``; differentiable.

    Backward gathers the gradients on the root, as the gradients of ``xs``.

    Args:
        comm: The communicator.
        xs: On the root, a tuple or list of ``comm.size`` Variables or arrays;
            ignored (may be None) on the other ranks.
        root: The rank that sends.

    Returns:
        Variable: ``xs[comm.rank]`` of the root.
    """
    comm = _common.check_communicator(comm, 'scatter')
    root = _common.check_rank(comm, root, 'root', 'scatter')
    if comm.rank == root:
        items = _check_sequence(xs, comm.size, 'xs', 'scatter')
        inputs: tuple[Any, ...] = (*items, _common.anchor(items[0]))
    else:
        inputs = (_common.anchor(),)
    return Scatter(comm, root).apply(inputs)[0]


def allgather(comm: CommunicatorBase, x: Any) -> tuple[Variable, ...]:
    """Gathers every rank's ``x`` on every rank; differentiable.

    Backward sums, for each rank's ``x``, the gradients that all ranks'
    copies of it received.

    Args:
        comm: The communicator.
        x: This rank's Variable or array (shapes may differ between ranks).

    Returns:
        tuple: One Variable per rank, in rank order.
    """
    comm = _common.check_communicator(comm, 'allgather')
    _check_array_like(x, 'x', 'allgather')
    return Allgather(comm).apply((x, _common.anchor(x)))


def alltoall(comm: CommunicatorBase, xs: Any) -> tuple[Variable, ...]:
    """Sends ``xs[i]`` to rank ``i`` and receives one array from every rank; differentiable.

    Backward sends each output's gradient back to the rank it came from.

    Args:
        comm: The communicator.
        xs: A tuple or list of ``comm.size`` Variables or arrays.

    Returns:
        tuple: The Variables received, in rank order (output ``i`` is rank
        ``i``'s ``xs[comm.rank]``).
    """
    comm = _common.check_communicator(comm, 'alltoall')
    items = _check_sequence(xs, comm.size, 'xs', 'alltoall')
    return Alltoall(comm).apply((*items, _common.anchor(items[0])))
