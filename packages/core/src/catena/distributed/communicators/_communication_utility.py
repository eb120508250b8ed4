"""MPI helpers under ChainerMN's names: rank layout and chunked object broadcasts."""

from __future__ import annotations

import pickle
from typing import Any

import numpy

from catena.distributed import _mpi
from catena.distributed.communicators.base import MAX_BUF_LEN

#: The largest MPI count (a C int); a piece of a broadcast must be shorter.
INT_MAX = 2 ** 31 - 1


class BufferLengthError(ValueError, AssertionError):
    """A ``max_buf_len`` out of ``[1, INT_MAX)`` (ChainerMN asserted it: an AssertionError too)."""


def check_max_buf_len(max_buf_len: Any) -> int:
    """Returns ``max_buf_len`` if it is an int in ``[1, INT_MAX)``.

    Raises:
        BufferLengthError: Otherwise.
    """
    if isinstance(max_buf_len, bool) or not isinstance(max_buf_len, (int, numpy.integer)) \
            or not 0 < max_buf_len < INT_MAX:
        raise BufferLengthError(f'max_buf_len must be an int in [1, {INT_MAX}), got '
                                f'{max_buf_len!r}')
    return int(max_buf_len)


def init_ranks(mpi_comm: Any) -> list[int]:
    """Returns ``[rank, intra_rank, intra_size, inter_rank, inter_size]`` of this process.

    Processes on the same node (same ``MPI.Get_processor_name()``) share an
    inter rank; nodes are numbered in the order of their lowest rank.

    Args:
        mpi_comm: An ``mpi4py.MPI.Comm`` (a collective call: every rank calls it).
    """
    from catena.distributed.communicators.mpi_base import Topology

    names = mpi_comm.allgather(_mpi.get_mpi().Get_processor_name())
    topology = Topology.from_node_names(names, mpi_comm.rank)
    return [int(mpi_comm.rank), topology.intra_rank, topology.intra_size,
            topology.inter_rank, topology.inter_size]


def chunked_bcast_obj(obj: Any, mpi_comm: Any, max_buf_len: int = MAX_BUF_LEN,
                      root: int = 0) -> Any:
    """Returns ``root``'s object on every rank, sent in pieces of at most ``max_buf_len`` bytes.

    The object is pickled on ``root`` and unpickled on the other ranks: use
    it only among the processes of one job.

    Args:
        obj: The object (read on ``root`` only).
        mpi_comm: An ``mpi4py.MPI.Comm``.
        max_buf_len: The largest piece, in bytes, in ``[1, INT_MAX)``.
        root: The rank that sends.

    Raises:
        BufferLengthError: For a bad ``max_buf_len`` (on every rank).
        ValueError: On the other ranks when ``root`` cannot pickle the object
            (``root`` raises the pickling error itself).
    """
    max_buf_len = check_max_buf_len(max_buf_len)
    MPI = _mpi.get_mpi()
    is_root = mpi_comm.rank == root
    header: Any = None
    payload: Any = None
    pickling_error: Exception | None = None
    if is_root:
        try:
            payload = numpy.frombuffer(pickle.dumps(obj, pickle.HIGHEST_PROTOCOL),
                                       dtype=numpy.uint8)
            header = int(payload.size)
        except Exception as error:  # noqa: BLE001 - told to every rank, then re-raised
            header = f'cannot pickle the object: {error!r}'
            pickling_error = error
    header = mpi_comm.bcast(header, root=root)
    if pickling_error is not None:
        raise pickling_error
    if isinstance(header, str):
        raise ValueError(f'bcast_obj failed: rank {root}: {header}')
    if not is_root:
        payload = numpy.empty(header, dtype=numpy.uint8)
    for start in range(0, header, max_buf_len):
        mpi_comm.Bcast([payload[start:start + max_buf_len], MPI.BYTE], root=root)
    return obj if is_root else pickle.loads(payload.tobytes())
