"""Splitting a dataset among the ranks (ChainerMN's ``chainermn.datasets.scatter``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy

from catena.datasets.sub_dataset import SubDataset
from catena.distributed.communicators.base import MAX_BUF_LEN, CommunicatorBase


def subset_range(n_total_samples: int, size: int, rank: int,
                 force_equal_length: bool = True) -> tuple[int, int]:
    """The interval ``[begin, end)`` of positions that rank ``rank`` of ``size`` takes.

    With ``force_equal_length`` rank ``i`` starts at ``n * i // size`` and
    every rank takes ``ceil(n / size)`` positions, so that the intervals
    overlap a little (some examples are used twice) when ``size`` does not
    divide ``n``. Otherwise the intervals tile ``[0, n)`` exactly, the first
    ``n % size`` ranks taking one position more than the others (as in
    ChainerMN).

    Args:
        n_total_samples: The number of examples ``n``.
        size: The number of ranks.
        rank: The rank.
        force_equal_length: Whether every rank gets the same number of examples.
    """
    if force_equal_length:
        begin = n_total_samples * rank // size
        # begin + ceil(n / size) never passes n: for the last rank it is exactly n.
        return begin, begin + -(-n_total_samples // size)
    stride, remainder = divmod(n_total_samples, size)
    begin = rank * stride + min(rank, remainder)
    return begin, begin + stride + (1 if rank < remainder else 0)


def _scatter_index(n_total_samples: int, size: int,
                   force_equal_length: bool) -> Iterator[tuple[int, int, int]]:
    """Yields ``(rank, begin, end)`` for each rank (see :func:`subset_range`; ChainerMN's name)."""
    for rank in range(size):
        yield (rank, *subset_range(n_total_samples, size, rank, force_equal_length))


def scatter_index(n_total_samples: int, comm: CommunicatorBase, root: int = 0, *,
                  force_equal_length: bool = True) -> tuple[int, int]:
    """Returns the interval of example positions this rank takes (collective).

    Only the root's ``n_total_samples`` counts. See :func:`subset_range` for
    how the positions are divided.

    Args:
        n_total_samples: The number of examples (on the root).
        comm: The communicator.
        root: The rank whose ``n_total_samples`` is used.
        force_equal_length: Whether every rank gets the same number of examples.

    Returns:
        ``(begin, end)``.
    """
    _check_comm(comm)
    message = None
    if comm.rank == root:
        message = _root_message(lambda: _check_count(n_total_samples))
    n_total = _unwrap(comm.bcast_obj(message, root=root), root)
    return subset_range(n_total, comm.size, comm.rank, force_equal_length)


def scatter_dataset(dataset: Any, comm: CommunicatorBase, root: int = 0, shuffle: bool = False,
                    seed: int | None = None, max_buf_len: int = MAX_BUF_LEN, *,
                    force_equal_length: bool = True) -> SubDataset:
    """Gives each rank its part of the root's dataset (collective).

    The root pickles its dataset (and, with ``shuffle``, a permutation drawn
    from ``numpy.random.RandomState(seed)``) and broadcasts it, in pieces of
    at most ``max_buf_len`` bytes; each rank then keeps a
    :class:`~catena.datasets.SubDataset` of its interval (see
    :func:`subset_range`). The other ranks' ``dataset`` is ignored (it may be
    None). The dataset is unpickled on the other ranks: only use this between
    the ranks of one job.

    Args:
        dataset: The dataset (on the root).
        comm: The communicator.
        root: The rank whose dataset is split.
        shuffle: Whether the examples are assigned in a random order.
        seed: The seed of that order (None: a random one).
        max_buf_len: The largest piece broadcast at once, in bytes.
        force_equal_length: Whether every rank gets the same number of
            examples (some examples then appear on two ranks, as in ChainerMN).

    Returns:
        This rank's part of the dataset.
    """
    _check_comm(comm)

    def prepare() -> tuple[Any, Any]:
        if dataset is None:
            raise ValueError('the root must pass a dataset, got None')
        order = numpy.random.RandomState(seed).permutation(len(dataset)) if shuffle else None
        return dataset, order

    message = _root_message(prepare) if comm.rank == root else None
    dataset, order = _unwrap(comm.bcast_obj(message, max_buf_len=max_buf_len, root=root), root)
    begin, end = subset_range(len(dataset), comm.size, comm.rank, force_equal_length)
    return SubDataset(dataset, begin, end, order)


def _root_message(compute: Any) -> tuple[bool, Any]:
    # The root's errors travel to every rank, so that none waits for a broadcast.
    try:
        return True, compute()
    except (TypeError, ValueError) as error:
        return False, str(error)


def _unwrap(message: tuple[bool, Any], root: int) -> Any:
    ok, value = message
    if not ok:
        raise ValueError(f'on the root (rank {root}): {value}')
    return value


def _check_comm(comm: Any) -> None:
    if not isinstance(comm, CommunicatorBase):
        raise TypeError(f'comm must be a catena.distributed communicator, got '
                        f'{type(comm).__name__}')


def _check_count(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, numpy.integer)) or n < 0:
        raise ValueError(f'n_total_samples must be a non-negative int, got {n!r}')
    return int(n)
