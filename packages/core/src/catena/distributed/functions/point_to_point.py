"""Differentiable ``send`` and ``recv`` between two ranks, and ``pseudo_connect``.

Forward, ``send`` moves arrays to a peer and ``recv`` takes them; backward
runs the other way: the receiver's ``backward`` sends the gradients back and
the sender's ``backward`` receives them. ``send`` returns a *delegate
variable*, a zero-dimensional zero that stands for the sent values in the
graph: backprop from it (or through a ``recv`` or ``pseudo_connect`` that
it was passed to) makes the sender wait for the gradients.
"""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.distributed.communicators.base import CommunicatorBase
from catena.distributed.functions import _common
from catena.function_node import FunctionNode
from catena.variable import Variable


class Send(FunctionNode):
    """Sends its inputs (all but the last, the anchor) to ``peer_rank``.

    Args:
        comm: The communicator.
        peer_rank: The receiving rank.
        peer_tag: The message tag.
        as_sequence: Whether the inputs travel as a tuple (the receiver
            gets a tuple) or, for one input, as a lone array.
    """

    def __init__(self, comm: CommunicatorBase, peer_rank: int, peer_tag: int,
                 as_sequence: bool) -> None:
        self.comm = comm
        self.peer_rank = peer_rank
        self.peer_tag = peer_tag
        self.as_sequence = as_sequence

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        *xs, anchor = inputs
        self._input_specs = [_common.SpecOf(x) for x in inputs]
        self._input_devices = [backend.get_device_from_array(x) for x in xs]
        self.comm.send(tuple(xs) if self.as_sequence else xs[0], self.peer_rank,
                       self.peer_tag)
        return _common.zeros_scalar_like(anchor),

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        received = self.comm.recv(self.peer_rank, self.peer_tag)
        grads = received if isinstance(received, tuple) else (received,)
        specs = self._input_specs
        if len(grads) != len(specs) - 1:
            raise ValueError(f'send: rank {self.peer_rank} returned {len(grads)} gradients for '
                             f'{len(specs) - 1} sent arrays (tag {self.peer_tag}); the sends '
                             'and receives of the two ranks do not match')
        result: list[Any] = []
        for grad, spec, device in zip(grads, specs, self._input_devices):
            if grad.shape != spec.shape:
                raise ValueError(f'send: rank {self.peer_rank} returned a gradient of shape '
                                 f'{grad.shape} for an array of shape {spec.shape} (tag '
                                 f'{self.peer_tag}); the sends and receives do not match')
            grad = device.send(grad.astype(spec.dtype, copy=False))
            result.append(Variable(grad, requires_grad=False))
        result.append(Variable(specs[-1].zeros(), requires_grad=False))
        return tuple(result)


class Recv(FunctionNode):
    """Receives arrays from ``peer_rank``; its one input is the delegate (or an anchor).

    Args:
        comm: The communicator.
        peer_rank: The sending rank.
        peer_tag: The message tag.
        device: Where to put the received arrays (None: where they arrive).
    """

    def __init__(self, comm: CommunicatorBase, peer_rank: int, peer_tag: int,
                 device: Any) -> None:
        self.comm = comm
        self.peer_rank = peer_rank
        self.peer_tag = peer_tag
        self.device = device

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._delegate_spec = _common.SpecOf(inputs[0])
        received = self.comm.recv(self.peer_rank, self.peer_tag)
        self.as_sequence = isinstance(received, tuple)
        arrays = received if self.as_sequence else (received,)
        if self.device is not None:
            arrays = tuple(self.device.send(array) for array in arrays)
        self._output_specs = [_common.SpecOf(array) for array in arrays]
        return tuple(arrays)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        grads = [spec.zeros() if gy is None else gy.array
                 for gy, spec in zip(grad_outputs, self._output_specs)]
        self.comm.send(tuple(grads) if self.as_sequence else grads[0], self.peer_rank,
                       self.peer_tag)
        return Variable(self._delegate_spec.zeros(), requires_grad=False),


class PseudoConnect(FunctionNode):
    """Returns its inputs but the first; backward gives the first (the delegate) a zero."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._delegate_spec = _common.SpecOf(inputs[0])
        return tuple(inputs[1:])

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (Variable(self._delegate_spec.zeros(), requires_grad=False),) + \
            tuple(grad_outputs)


def send(x: Any, communicator: CommunicatorBase, rank: int, tag: int = 0) -> Variable:
    """Sends ``x`` to rank ``rank``; differentiable (backward receives its gradient).

    The receiving rank calls :func:`recv` with this rank and the same tag.
    When backprop later reaches the returned delegate variable, this rank
    waits for the gradient that the receiver's backward sends back.

    Args:
        x: A Variable or array, or a tuple/list of them (received as a tuple).
        communicator: The communicator.
        rank: The destination rank (not this process's own).
        tag: The message tag; sends and receives between two ranks with the
            same tag are matched in order.

    Returns:
        Variable: The delegate variable: a zero-dimensional zero that stands
        for the sent values in the graph. Return it from the model (and call
        its ``backward``), or pass it to :func:`recv` or
        :func:`pseudo_connect`, so that backprop reaches this send.
    """
    comm = _common.check_communicator(communicator, 'send')
    rank = _common.check_rank(comm, rank, 'rank', 'send')
    tag = _common.check_tag(tag, 'send')
    if rank == comm.rank:
        raise ValueError(f'send: rank {rank} is this process itself; send to another rank')
    as_sequence = isinstance(x, (tuple, list))
    xs = list(x) if as_sequence else [x]
    if not xs:
        raise ValueError('send: x is an empty sequence; give at least one Variable or array')
    for i, item in enumerate(xs):
        if item is None or not hasattr(_common.array_of(item), 'shape'):
            raise TypeError(f'send: x{f"[{i}]" if as_sequence else ""} must be a Variable or '
                            f'an array, got {type(item).__name__}')
    node = Send(comm, rank, tag, as_sequence)
    delegate, = node.apply((*xs, _common.anchor(xs[0])))
    delegate.name = 'delegate_variable'
    return delegate


def recv(communicator: CommunicatorBase, rank: int, delegate_variable: Any = None,
         tag: int = 0, device: Any = None, force_tuple: bool = False) -> Any:
    """Receives what rank ``rank`` sent with :func:`send`; differentiable.

    When backprop reaches the received variables, their gradients are sent
    back to ``rank`` (zeros for outputs that got no gradient), and then it
    goes on into ``delegate_variable``.

    Args:
        communicator: The communicator.
        rank: The sending rank (not this process's own).
        delegate_variable: The delegate variable of an earlier, otherwise
            unconnected part of this rank's graph (for example what
            :func:`send` returned), so that backprop reaches that part too,
            after this receive. None when there is none.
        tag: The message tag (as given to :func:`send`).
        device: The device to put the received arrays on (a device
            specifier), or None to keep them where they arrive (the
            sender's array module when it is loaded here, NumPy otherwise).
        force_tuple: Return a tuple even for one received array.

    Returns:
        A Variable, or a tuple of Variables when the sender sent a tuple or
        list (or ``force_tuple`` is True).
    """
    comm = _common.check_communicator(communicator, 'recv')
    rank = _common.check_rank(comm, rank, 'rank', 'recv')
    tag = _common.check_tag(tag, 'recv')
    if rank == comm.rank:
        raise ValueError(f'recv: rank {rank} is this process itself; receive from another rank')
    if delegate_variable is None:
        delegate_variable = _common.anchor()
    elif not isinstance(delegate_variable, Variable):
        raise TypeError(f'recv: delegate_variable must be a Variable or None, got '
                        f'{type(delegate_variable).__name__}')
    target = None if device is None else backend.get_device(device)
    ys = Recv(comm, rank, tag, target).apply((delegate_variable,))
    if len(ys) == 1 and not force_tuple:
        return ys[0]
    return ys


def pseudo_connect(delegate_variable: Any, *actual_variables: Any) -> tuple[Variable, ...]:
    """Returns ``actual_variables`` joined, in the graph, to ``delegate_variable``.

    The outputs have the values of ``actual_variables``. Backprop through
    them passes their gradients on unchanged and also gives
    ``delegate_variable`` a zero gradient, so that backprop goes on into the
    part of the graph behind it (for example a :func:`send` whose delegate
    would otherwise be lost, when a model sends twice or also returns an
    output).

    Args:
        delegate_variable: A delegate variable (from :func:`send`), or any
            Variable or array to join, or None when there is nothing to
            join (for example the delegate of a
            :func:`~catena.distributed.links.create_multi_node_n_step_rnn`
            link without ``rank_out``): the outputs then just stand for
            ``actual_variables``, as in ChainerMN.
        actual_variables: The Variables (or arrays) to return.

    Returns:
        tuple: The Variables, one per actual variable (a 1-tuple for one, as
        in ChainerMN).
    """
    if delegate_variable is None:
        delegate_variable = _common.anchor()
    elif not isinstance(delegate_variable, Variable):
        if not hasattr(delegate_variable, 'shape'):
            raise TypeError(f'pseudo_connect: delegate_variable must be a Variable, an array '
                            f'or None, got {type(delegate_variable).__name__}')
        delegate_variable = Variable(delegate_variable)
    if not actual_variables:
        raise ValueError('pseudo_connect: give at least one actual variable after the '
                         'delegate variable')
    for i, item in enumerate(actual_variables):
        if item is None or not hasattr(_common.array_of(item), 'shape'):
            raise TypeError(f'pseudo_connect: actual_variables[{i}] must be a Variable or an '
                            f'array, got {type(item).__name__}')
    return PseudoConnect().apply((delegate_variable, *actual_variables))
