"""Model parallelism across ranks: :class:`MultiNodeChainList`."""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

import numpy

from catena.distributed.communicators.base import CommunicatorBase
from catena.distributed.functions.point_to_point import pseudo_connect, recv, send
from catena.distributed.links._sharing import SharesCommunicatorOnCopy
from catena.link import ChainList, Link
from catena.variable import Variable

Ranks = tuple[int, ...] | None


def _variables_of(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _last_variable(value: Any) -> Variable | None:
    for item in reversed(_variables_of(value)):
        if isinstance(item, Variable):
            return item
    return None


def _tie(anchor: Variable | None, value: Any) -> Any:
    """``value`` joined in the graph to ``anchor`` (see ``pseudo_connect``); same structure."""
    if anchor is None:
        return value
    items = _variables_of(value)
    if not items:
        return value
    tied = pseudo_connect(anchor, *items)
    if isinstance(value, (tuple, list)):
        return tied
    return tied[0]


class MultiNodeChainList(SharesCommunicatorOnCopy, ChainList):
    """A model made of parts that exchange their inputs and outputs with other ranks.

    Each part is added with :meth:`add_link`, saying where its inputs come
    from (``rank_in``: the model's own inputs, or the ranks that send them)
    and where its outputs go (``rank_out``: the model's output, or the ranks
    to send them to). Calling the model runs the parts in the order they
    were added, sending and receiving with
    :func:`~catena.distributed.functions.send` and
    :func:`~catena.distributed.functions.recv`, and keeps this rank's graph
    connected through the delegate variables so that one ``backward`` call
    runs the parts' backward passes in reverse order, exchanging gradients
    with the same ranks. A part whose ``rank_in`` or ``rank_out`` includes
    this rank itself hands its values over locally.

    Calling the model returns the output of the part with ``rank_out=None``
    (at most one part may have it), or, when no part has, a delegate
    variable: call its ``backward`` to run this rank's share of the backward
    pass. A part that returns a tuple sends (and its receiver gets) a tuple.

    Args:
        comm: The communicator.
    """

    def __init__(self, comm: CommunicatorBase) -> None:
        if not isinstance(comm, CommunicatorBase):
            raise TypeError(f'comm must be a catena.distributed communicator, got '
                            f'{type(comm).__name__}')
        super().__init__()
        self.comm = comm
        self._routes: list[tuple[Ranks, Ranks]] = []

    def add_link(self, link: Link, rank_in: Any = None, rank_out: Any = None) -> None:
        """Adds a part of the model.

        Args:
            link: The part (a Link; its ``__call__`` takes the inputs).
            rank_in: None to take the model's inputs, or the rank (an int,
                or a list of ranks) whose sent values become the part's
                inputs, in that order.
            rank_out: None to make the part's output the model's output, or
                the rank (an int, or a list of ranks) to send it to.
        """
        if not isinstance(link, Link):
            raise TypeError(f'link must be a catena.Link, got {type(link).__name__}')
        route_in = self._ranks(rank_in, 'rank_in')
        route_out = self._ranks(rank_out, 'rank_out')
        if route_out is None and any(out is None for _, out in self._routes):
            raise ValueError('MultiNodeChainList: only one part may have rank_out=None (the '
                             "model's output); an earlier part has it already")
        ChainList.append(self, link)
        self._routes.append((route_in, route_out))

    def append(self, link: Link) -> None:
        """Adds ``link`` with ``rank_in=None`` and ``rank_out=None`` (see :meth:`add_link`)."""
        self.add_link(link)

    def _ranks(self, value: Any, name: str) -> Ranks:
        if value is None:
            return None
        values: Sequence[Any] = value if isinstance(value, (list, tuple)) else [value]
        if not values:
            raise ValueError(f'{name} must be None, a rank or a non-empty list of ranks')
        for rank in values:
            if isinstance(rank, bool) or not isinstance(rank, (int, numpy.integer)) \
                    or not 0 <= rank < self.comm.size:
                raise ValueError(f'{name} must be None, a rank in [0, {self.comm.size}) or a '
                                 f'list of them; got {value!r}')
        return tuple(int(rank) for rank in values)

    def forward(self, *inputs: Any) -> Any:
        """Runs the parts in order, exchanging values with the other ranks.

        Args:
            inputs: The model's inputs, given to the parts with ``rank_in=None``.

        Returns:
            The model's output, or a delegate variable when no part has
            ``rank_out=None``.
        """
        comm = self.comm
        local: collections.deque[Any] = collections.deque()
        # The variable whose backward must come after everything built since:
        # each new receive or send is joined to it.
        anchor: Variable | None = None
        output: Any = None
        for link, (rank_in, rank_out) in zip(self, self._routes):
            if rank_in is None:
                args = _variables_of(_tie(anchor, inputs)) if inputs else ()
                if inputs:
                    anchor = None
            else:
                received = []
                for source in rank_in:
                    if source == comm.rank:
                        value = _tie(anchor, local.popleft())
                    else:
                        value = recv(comm, source, delegate_variable=anchor)
                    received.append(value)
                    anchor = _last_variable(value)
                anchor = None
                args = tuple(received)
            x = _tie(anchor, link(*args))
            if rank_out is None:
                output = x
                anchor = _last_variable(x)
                continue
            for index, destination in enumerate(rank_out):
                if destination == comm.rank:
                    if index:
                        x = _tie(anchor, x)
                    local.append(x)
                    anchor = _last_variable(x)
                else:
                    delegate = send(x, comm, destination)
                    anchor = delegate if index == 0 or anchor is None \
                        else pseudo_connect(anchor, delegate)[0]
        if output is None:
            return anchor
        if anchor is None or anchor is _last_variable(output):
            return output
        return _tie(anchor, output)
