"""An n-step RNN whose states come from and go to other ranks: :class:`MultiNodeNStepRNN`."""

from __future__ import annotations

from typing import Any

import numpy

from catena.distributed.communicators.base import CommunicatorBase
from catena.distributed.functions.point_to_point import pseudo_connect, recv, send
from catena.distributed.links._sharing import SharesCommunicatorOnCopy
from catena.link import Chain
from catena.links.rnn.n_step_gru import NStepGRUBase
from catena.links.rnn.n_step_lstm import NStepLSTMBase
from catena.links.rnn.n_step_rnn import (
    NStepBiRNNReLU,
    NStepBiRNNTanh,
    NStepRNNBase,
    NStepRNNReLU,
    NStepRNNTanh,
)
from catena.variable import Variable

_ONE_STATE = (NStepGRUBase, NStepRNNTanh, NStepRNNReLU, NStepBiRNNTanh, NStepBiRNNReLU)


def _n_cells(link: Any) -> int:
    if isinstance(link, NStepLSTMBase):
        return 2
    if isinstance(link, _ONE_STATE):
        return 1
    raise TypeError('actual_link must be an n-step RNN link of catena.links (NStepLSTM, '
                    'NStepBiLSTM, NStepGRU, NStepBiGRU, NStepRNNTanh, NStepRNNReLU, '
                    f'NStepBiRNNTanh or NStepBiRNNReLU), got {type(link).__name__}')


def _check_peer(comm: CommunicatorBase, rank: Any, name: str) -> int | None:
    if rank is None:
        return None
    if isinstance(rank, bool) or not isinstance(rank, (int, numpy.integer)) \
            or not 0 <= rank < comm.size:
        raise ValueError(f'{name} must be None or a rank in [0, {comm.size}), got {rank!r}')
    if rank == comm.rank:
        raise ValueError(f'{name}={rank} is this process itself; give another rank or None')
    return int(rank)


class MultiNodeNStepRNN(SharesCommunicatorOnCopy, Chain):
    """An n-step RNN link that receives its initial states and sends its final ones.

    Made by :func:`create_multi_node_n_step_rnn`, which documents the
    arguments. Its one child link, ``actual_rnn``, is the wrapped RNN, so the
    parameters are named ``/actual_rnn/...`` and serialize and copy as in a
    plain :class:`~catena.Chain`; copies share the communicator.

    Attributes:
        actual_rnn: The wrapped n-step RNN link.
        comm: The communicator (also ``communicator``).
        rank_in (int or None): The rank the initial states come from.
        rank_out (int or None): The rank the final states go to.
        n_cells (int): The number of states: 2 for LSTMs (``h`` and ``c``),
            else 1.
    """

    def __init__(self, actual_link: NStepRNNBase, communicator: CommunicatorBase,
                 rank_in: int | None = None, rank_out: int | None = None) -> None:
        n_cells = _n_cells(actual_link)
        if not isinstance(communicator, CommunicatorBase):
            raise TypeError(f'communicator must be a catena.distributed communicator, got '
                            f'{type(communicator).__name__}')
        rank_in = _check_peer(communicator, rank_in, 'rank_in')
        rank_out = _check_peer(communicator, rank_out, 'rank_out')
        super().__init__()
        with self.init_scope():
            self.actual_rnn = actual_link
        self.comm = communicator
        self.rank_in = rank_in
        self.rank_out = rank_out
        self.n_cells = n_cells

    @property
    def communicator(self) -> CommunicatorBase:
        """The communicator (ChainerMN's name for ``comm``)."""
        return self.comm

    def forward(self, *inputs: Any) -> tuple[Any, ...]:
        """Runs the RNN from states received from ``rank_in``; sends its final states.

        Args:
            inputs: The arguments of the wrapped link after its states:
                ``xs``, the list of input sequences.

        Returns:
            tuple: The wrapped link's outputs (``(hy, cy, ys)`` for LSTMs,
            ``(hy, ys)`` otherwise) followed by the delegate variable of
            the sends to ``rank_out``, or None when ``rank_out`` is None.
            Backprop from the delegate variable (for example
            ``phi.backward()``) runs this rank's share of the backward pass.
        """
        cells: list[Any] = [None] * self.n_cells
        if self.rank_in is not None:
            device = self.actual_rnn.device
            previous: Variable | None = None
            for i in range(self.n_cells):
                # Each receive hangs from the previous one, so that backprop
                # sends the gradients back in the reverse order of the states,
                # the order in which the sender's chained sends wait for them.
                cells[i] = recv(self.comm, self.rank_in, delegate_variable=previous,
                                device=device)
                previous = cells[i]
        outputs = tuple(self.actual_rnn(*cells, *inputs))
        delegate = None
        if self.rank_out is not None:
            for cell in outputs[:self.n_cells]:
                if delegate is not None:
                    cell, = pseudo_connect(delegate, cell)
                delegate = send(cell, self.comm, self.rank_out)
        return outputs + (delegate,)


def create_multi_node_n_step_rnn(actual_link: NStepRNNBase, communicator: CommunicatorBase,
                                 rank_in: int | None = None,
                                 rank_out: int | None = None) -> MultiNodeNStepRNN:
    """Wraps an n-step RNN link so that its states travel between ranks.

    The returned link is called with the input sequences ``xs`` only. It
    takes the initial states (``hx``, and ``cx`` for LSTMs) from rank
    ``rank_in`` (zeros when None), runs ``actual_link`` and sends the final
    states to rank ``rank_out``, where another such link receives them:
    for example an encoder on rank 0 and a decoder on rank 1 of a
    sequence-to-sequence model::

        encoder = create_multi_node_n_step_rnn(
            L.NStepLSTM(n_layers, n_units, n_units, 0.1), comm, rank_in=None, rank_out=1)
        hy, cy, ys, phi = encoder(xs)   # on rank 0; then phi.backward()
        decoder = create_multi_node_n_step_rnn(
            L.NStepLSTM(n_layers, n_units, n_units, 0.1), comm, rank_in=0, rank_out=None)
        hy, cy, ys, _ = decoder(ys)     # on rank 1; then loss.backward()

    Backprop through the decoder sends the states' gradients back to the
    encoder, whose ``phi.backward()`` receives them and goes on through
    ``actual_link``.

    Args:
        actual_link: The RNN link: :class:`~catena.links.NStepLSTM`,
            :class:`~catena.links.NStepBiLSTM`, :class:`~catena.links.NStepGRU`,
            :class:`~catena.links.NStepBiGRU`, or one of the
            ``NStep(Bi)RNNTanh``/``NStep(Bi)RNNReLU`` links.
        communicator: The communicator.
        rank_in: The rank that sends the initial states, or None to start
            from zeros.
        rank_out: The rank to send the final states to, or None.

    Returns:
        MultiNodeNStepRNN: The wrapping link; calling it returns the
        outputs of ``actual_link`` followed by the delegate variable of the
        sends (None when ``rank_out`` is None).
    """
    return MultiNodeNStepRNN(actual_link, communicator, rank_in, rank_out)
