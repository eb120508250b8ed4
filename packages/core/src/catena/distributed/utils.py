"""Helpers for running setup code on several ranks: :func:`local_rank_zero_first`."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from catena.distributed.communicators.base import CommunicatorBase


@contextlib.contextmanager
def local_rank_zero_first(comm: CommunicatorBase) -> Iterator[None]:
    """Runs the ``with`` block on each node's first rank, then on the others.

    The first rank of every node (``comm.intra_rank == 0``) runs the block
    while the other ranks wait; then they run it. Use it around code that
    downloads or converts a file into a cache shared by the ranks of a node
    (a dataset, pretrained weights): one rank per node fills the cache, the
    others find it filled and only read it::

        with dist.local_rank_zero_first(comm):
            train, test = catena.datasets.get_mnist()

    Entering is a collective call: every rank of ``comm`` must enter. When
    the block raises on a first rank, it raises there and the other ranks
    raise a RuntimeError instead of running the block.

    Args:
        comm: The communicator.

    Yields:
        None.
    """
    if not isinstance(comm, CommunicatorBase):
        raise TypeError(f'comm must be a catena.distributed communicator, got '
                        f'{type(comm).__name__}')
    first = comm.intra_rank == 0
    failure: str | None = None
    if first:
        try:
            yield
        except BaseException as error:
            failure = f'{type(error).__name__}: {error}'
            comm.allgather_obj(failure)
            raise
        comm.allgather_obj(None)
        return
    failures = [f for f in comm.allgather_obj(None) if f is not None]
    if failures:
        raise RuntimeError(f'the block failed on the first rank of a node, so it is not run '
                           f'here: {"; ".join(failures)}')
    yield
