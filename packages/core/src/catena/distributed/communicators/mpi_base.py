"""Communicators over MPI (mpi4py): topology, array and object transfers, reductions."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy

from catena import backend
from catena.distributed import _arrays, _mpi, global_except_hook
from catena.distributed.communicators import _communication_utility
from catena.distributed.communicators.base import (
    MAX_BUF_LEN,
    CommunicatorBase,
    initialized_params,
)


@dataclasses.dataclass(frozen=True)
class _Failure:
    """Sent in place of a message when a rank's input is bad, so that no rank waits forever."""

    rank: int
    message: str


@dataclasses.dataclass(frozen=True)
class Topology:
    """How the ranks of a communicator sit on nodes.

    Nodes are numbered in the order of their lowest rank; the ranks of a node
    are numbered in rank order.
    """

    intra_rank: int
    intra_size: int
    inter_rank: int
    inter_size: int

    @classmethod
    def from_node_names(cls, names: Sequence[str], rank: int) -> Topology:
        """Builds the topology from every rank's node name (in rank order)."""
        nodes = list(dict.fromkeys(names))
        mine = names[rank]
        return cls(intra_rank=list(names[:rank]).count(mine), intra_size=list(names).count(mine),
                   inter_rank=nodes.index(mine), inter_size=len(nodes))


class MpiCommunicatorBase(CommunicatorBase):
    """The base of the communicators that run on an MPI communicator.

    Creating one installs :mod:`catena.distributed.global_except_hook`
    (unless ``CATENA_DISTRIBUTED_NO_EXCEPT_HOOK=1``), so that an uncaught
    exception on one rank aborts the whole job instead of leaving the other
    ranks waiting forever.

    Args:
        mpi_comm: The ``mpi4py.MPI.Comm`` to use (``MPI.COMM_WORLD`` when None).
        allreduce_grad_dtype: See :class:`CommunicatorBase`.
        batched_copy: See :class:`CommunicatorBase`.
        hierarchical: Whether sums run in two levels: a reduce within each
            node, an all-reduce among the node leaders (intra rank 0), then a
            broadcast within each node. It pays off when the network between
            nodes is much slower than within them.
        node_name: The name of this process's node; ranks with the same name
            form a node. Defaults to ``MPI.Get_processor_name()``. Setting it
            groups ranks differently (for example to try hierarchical sums on
            a single machine).
    """

    def __init__(self, mpi_comm: Any = None, *, allreduce_grad_dtype: Any = None,
                 batched_copy: bool = True, hierarchical: bool = False,
                 node_name: str | None = None) -> None:
        super().__init__(allreduce_grad_dtype=allreduce_grad_dtype, batched_copy=batched_copy)
        MPI = _mpi.get_mpi()
        if mpi_comm is None:
            mpi_comm = MPI.COMM_WORLD
        elif not isinstance(mpi_comm, MPI.Comm):
            raise TypeError(f'mpi_comm must be an mpi4py.MPI.Comm or None, got '
                            f'{type(mpi_comm).__name__}')
        if node_name is not None and not isinstance(node_name, str):
            raise TypeError(f'node_name must be a str or None, got {type(node_name).__name__}')
        global_except_hook._add_hook_if_enabled()
        self._mpi_comm = mpi_comm
        self._owns_mpi_comm = False
        self._hierarchical = bool(hierarchical)
        self._node_name = node_name
        names = mpi_comm.allgather(MPI.Get_processor_name() if node_name is None else node_name)
        self._topology = Topology.from_node_names(names, mpi_comm.rank)
        self._intra_comm: Any = None
        self._leader_comm: Any = None
        if self._hierarchical:
            self._intra_comm = mpi_comm.Split(self._topology.inter_rank, mpi_comm.rank)
            leader = self._topology.intra_rank == 0
            leaders = mpi_comm.Split(0 if leader else MPI.UNDEFINED, mpi_comm.rank)
            self._leader_comm = leaders if leader else None

    def _settings(self) -> dict[str, Any]:
        """The keyword arguments that rebuild this communicator on another MPI communicator."""
        return {'allreduce_grad_dtype': self.allreduce_grad_dtype,
                'batched_copy': self.batched_copy, 'hierarchical': self._hierarchical,
                'node_name': self._node_name}

    def __repr__(self) -> str:
        return (f'<{type(self).__name__} rank {self.rank} of {self.size}, node '
                f'{self.inter_rank} of {self.inter_size}>')

    # ------------------------------------------------------------- topology

    @property
    def mpi_comm(self) -> Any:
        """The underlying ``mpi4py.MPI.Comm``."""
        return self._mpi_comm

    @property
    def hierarchical(self) -> bool:
        """Whether sums run in two levels (fixed when the communicator is created)."""
        return self._hierarchical

    @property
    def rank(self) -> int:
        return int(self._mpi_comm.rank)

    @property
    def size(self) -> int:
        return int(self._mpi_comm.size)

    @property
    def intra_rank(self) -> int:
        return self._topology.intra_rank

    @property
    def intra_size(self) -> int:
        return self._topology.intra_size

    @property
    def inter_rank(self) -> int:
        return self._topology.inter_rank

    @property
    def inter_size(self) -> int:
        return self._topology.inter_size

    def split(self, color: int, key: int) -> MpiCommunicatorBase:
        child = type(self)(self._mpi_comm.Split(color, key), **self._settings())
        child._owns_mpi_comm = True
        return child

    def finalize(self) -> None:
        for comm in (self._intra_comm, self._leader_comm):
            if comm is not None:
                comm.Free()
        self._intra_comm = self._leader_comm = None
        if self._owns_mpi_comm:
            self._mpi_comm.Free()
            self._owns_mpi_comm = False

    # ------------------------------------------------------------- checks

    def _check_rank(self, rank: Any, name: str) -> None:
        if isinstance(rank, bool) or not isinstance(rank, (int, numpy.integer)) \
                or not 0 <= rank < self.size:
            raise ValueError(f'{name} must be a rank in [0, {self.size}), got {rank!r}')

    def _raise_failures(self, messages: Sequence[Any], what: str) -> None:
        failures = [m for m in messages if isinstance(m, _Failure)]
        if failures:
            detail = '; '.join(f'rank {f.rank}: {f.message}' for f in failures)
            raise ValueError(f'{what} failed: {detail}')

    def _spec_or_failure(self, x: Any) -> Any:
        try:
            return _arrays.spec_of(x)
        except TypeError as error:
            return _Failure(self.rank, str(error))

    # ------------------------------------------------------------- arrays

    def send(self, data: Any, dest: int, tag: int = 0) -> None:
        """Sends an array, or a tuple/list of arrays, to rank ``dest`` (no pickling of arrays)."""
        self._check_rank(dest, 'dest')
        MPI = _mpi.get_mpi()
        is_sequence = isinstance(data, (tuple, list))
        arrays = [_arrays.contiguous(x) for x in (data if is_sequence else [data])]
        specs = [_arrays.spec_of(x) for x in arrays]
        self._mpi_comm.send((is_sequence, specs), dest=dest, tag=tag)
        for array in arrays:
            with _arrays.mpi_buffer(_arrays.byte_view(array), writeback=False) as buf:
                self._mpi_comm.Send([buf, MPI.BYTE], dest=dest, tag=tag)

    def recv(self, source: int, tag: int = 0) -> Any:
        """Receives what :meth:`send` sent: an array, or a tuple of arrays for a sequence.

        Arrays arrive in the sender's array module when this process has it
        loaded (CuPy arrays on the current device), as NumPy arrays otherwise.
        """
        MPI = _mpi.get_mpi()
        status = MPI.Status()
        is_sequence, specs = self._mpi_comm.recv(source=source, tag=tag, status=status)
        source, tag = status.Get_source(), status.Get_tag()
        arrays = []
        for spec in specs:
            out = _arrays.array_module(spec.module).empty(spec.shape, dtype=spec.dtype)
            with _arrays.mpi_buffer(_arrays.byte_view(out), writeback=True) as buf:
                self._mpi_comm.Recv([buf, MPI.BYTE], source=source, tag=tag)
            arrays.append(out)
        return tuple(arrays) if is_sequence else arrays[0]

    def bcast(self, x: Any, root: int = 0) -> Any:
        self._check_rank(root, 'root')
        MPI = _mpi.get_mpi()
        is_root = self.rank == root
        if is_root:
            spec = self._spec_or_failure(x)
            if not isinstance(spec, _Failure):
                x = _arrays.contiguous(x)
        spec = self._mpi_comm.bcast(spec if is_root else None, root=root)
        self._raise_failures([spec], 'bcast')
        out = x if is_root else _arrays.array_module(spec.module).empty(spec.shape,
                                                                         dtype=spec.dtype)
        with _arrays.mpi_buffer(_arrays.byte_view(out), writeback=not is_root) as buf:
            self._mpi_comm.Bcast([buf, MPI.BYTE], root=root)
        return out

    def gather(self, x: Any, root: int = 0) -> tuple[Any, ...] | None:
        self._check_rank(root, 'root')
        MPI = _mpi.get_mpi()
        specs = self._mpi_comm.allgather(self._spec_or_failure(x))
        self._raise_failures(specs, 'gather')
        x = _arrays.contiguous(x)
        counts, displs = _layout(specs)
        with _arrays.mpi_buffer(_arrays.byte_view(x), writeback=False) as send:
            if self.rank != root:
                self._mpi_comm.Gatherv([send, MPI.BYTE], None, root=root)
                return None
            flat = backend.get_array_module(x).empty(sum(counts), dtype=numpy.uint8)
            with _arrays.mpi_buffer(flat, writeback=True) as recv:
                self._mpi_comm.Gatherv([send, MPI.BYTE], [recv, (counts, displs), MPI.BYTE],
                                       root=root)
        return _arrays.split_bytes(flat, specs)

    def allgather(self, x: Any) -> tuple[Any, ...]:
        MPI = _mpi.get_mpi()
        specs = self._mpi_comm.allgather(self._spec_or_failure(x))
        self._raise_failures(specs, 'allgather')
        x = _arrays.contiguous(x)
        counts, displs = _layout(specs)
        flat = backend.get_array_module(x).empty(sum(counts), dtype=numpy.uint8)
        with _arrays.mpi_buffer(_arrays.byte_view(x), writeback=False) as send, \
                _arrays.mpi_buffer(flat, writeback=True) as recv:
            self._mpi_comm.Allgatherv([send, MPI.BYTE], [recv, (counts, displs), MPI.BYTE])
        return _arrays.split_bytes(flat, specs)

    def allreduce(self, x: Any) -> Any:
        specs = self._mpi_comm.allgather(self._spec_or_failure(x))
        self._raise_failures(specs, 'allreduce')
        if len({(spec.shape, spec.dtype) for spec in specs}) != 1:
            shapes = ', '.join(f'rank {i}: {s.shape} {numpy.dtype(s.dtype)}'
                               for i, s in enumerate(specs))
            raise ValueError(f'allreduce needs the same shape and dtype on every rank; got '
                             f'{shapes}')
        out = x.copy()
        self._sum_in_place(out.reshape(-1))
        return out

    def alltoall(self, xs: Sequence[Any]) -> tuple[Any, ...]:
        MPI = _mpi.get_mpi()
        try:
            if not isinstance(xs, (tuple, list)) or len(xs) != self.size:
                raise TypeError(f'xs must be a tuple or list of {self.size} arrays (one per '
                                f'rank), got {type(xs).__name__}'
                                f'{f" of length {len(xs)}" if hasattr(xs, "__len__") else ""}')
            outgoing: list[Any] = [_arrays.spec_of(x) for x in xs]
        except TypeError as error:
            outgoing = [_Failure(self.rank, str(error))] * self.size
        incoming = self._mpi_comm.alltoall(outgoing)
        self._raise_failures(incoming, 'alltoall')
        xp = backend.get_array_module(*xs)
        send = _arrays.concat_bytes(xs, xp)
        send_counts, send_displs = _layout(outgoing)
        recv_counts, recv_displs = _layout(incoming)
        flat = xp.empty(sum(recv_counts), dtype=numpy.uint8)
        with _arrays.mpi_buffer(send, writeback=False) as sbuf, \
                _arrays.mpi_buffer(flat, writeback=True) as rbuf:
            self._mpi_comm.Alltoallv([sbuf, (send_counts, send_displs), MPI.BYTE],
                                     [rbuf, (recv_counts, recv_displs), MPI.BYTE])
        return _arrays.split_bytes(flat, incoming)

    def scatter(self, xs: Any, root: int = 0) -> Any:
        """Returns ``xs[rank]`` of ``root``.

        On ``root``, ``xs`` is a tuple or list of ``size`` arrays, or an array
        whose first axis has length ``size``; other ranks may pass None.
        """
        self._check_rank(root, 'root')
        MPI = _mpi.get_mpi()
        is_root = self.rank == root
        pieces: list[Any] = []
        outgoing: list[Any] = []
        if is_root:
            try:
                pieces = self._scatter_pieces(xs)
                outgoing = [_arrays.spec_of(piece) for piece in pieces]
            except TypeError as error:
                outgoing = [_Failure(root, str(error))] * self.size
        spec = self._mpi_comm.scatter(outgoing if is_root else None, root=root)
        self._raise_failures([spec], 'scatter')
        out = _arrays.array_module(spec.module).empty(spec.shape, dtype=spec.dtype)
        with _arrays.mpi_buffer(_arrays.byte_view(out), writeback=True) as recv:
            if is_root:
                counts, displs = _layout(outgoing)
                send = _arrays.concat_bytes(pieces, backend.get_array_module(*pieces))
                with _arrays.mpi_buffer(send, writeback=False) as sbuf:
                    self._mpi_comm.Scatterv([sbuf, (counts, displs), MPI.BYTE],
                                            [recv, MPI.BYTE], root=root)
            else:
                self._mpi_comm.Scatterv(None, [recv, MPI.BYTE], root=root)
        return out

    def _scatter_pieces(self, xs: Any) -> list[Any]:
        if isinstance(xs, (tuple, list)):
            pieces = list(xs)
        elif hasattr(xs, 'shape') and len(xs.shape) >= 1:
            pieces = [xs[i] for i in range(xs.shape[0])]
        else:
            raise TypeError(f'xs must be a tuple or list of {self.size} arrays, or an array '
                            f'with {self.size} rows, on the root; got {type(xs).__name__}')
        if len(pieces) != self.size:
            raise TypeError(f'xs must hold {self.size} arrays (one per rank), got {len(pieces)}')
        return pieces

    # ------------------------------------------------------------- objects

    def send_obj(self, obj: Any, dest: int, tag: int = 0) -> None:
        """Sends a picklable object to ``dest``. It is pickled: use only within one job."""
        self._check_rank(dest, 'dest')
        self._mpi_comm.send(obj, dest=dest, tag=tag)

    def recv_obj(self, source: int, status: Any = None, tag: int | None = None) -> Any:
        """Receives an object from ``source``; it is unpickled: use only within one job."""
        MPI = _mpi.get_mpi()
        return self._mpi_comm.recv(source=source, tag=MPI.ANY_TAG if tag is None else tag,
                                   status=status)

    def bcast_obj(self, obj: Any, max_buf_len: int = MAX_BUF_LEN, root: int = 0) -> Any:
        """Returns ``root``'s object on every rank.

        The object is pickled on ``root`` and unpickled on the other ranks
        (use only within one job), and sent in pieces of at most
        ``max_buf_len`` bytes (in ``[1, 2**31 - 1)``).
        """
        self._check_rank(root, 'root')
        return _communication_utility.chunked_bcast_obj(obj, self._mpi_comm, max_buf_len, root)

    def gather_obj(self, obj: Any, root: int = 0) -> list[Any] | None:
        """Gathers picklable objects on ``root`` (pickled: use only within one job)."""
        self._check_rank(root, 'root')
        return self._mpi_comm.gather(obj, root=root)

    def allgather_obj(self, obj: Any) -> list[Any]:
        """Gathers picklable objects on every rank (pickled: use only within one job)."""
        return self._mpi_comm.allgather(obj)

    def allreduce_obj(self, obj: Any) -> Any:
        """Sums picklable objects with ``+`` (pickled: use only within one job)."""
        return self._mpi_comm.allreduce(obj, op=_mpi.get_mpi().SUM)

    def scatter_obj(self, objs: Any, root: int = 0) -> Any:
        """Scatters ``root``'s sequence of objects (pickled: use only within one job)."""
        self._check_rank(root, 'root')
        return self._mpi_comm.scatter(objs, root=root)

    # ------------------------------------------------------------- parameters

    def bcast_data(self, model: Any) -> None:
        """Overwrites every rank's parameters of ``model`` with rank 0's, one MPI call per
        parameter (collective; subclasses may pack them)."""
        for param in initialized_params(model):
            data = param.array
            if data.flags.c_contiguous:
                self._bcast_in_place(data.reshape(-1), root=0)
            else:
                flat = data.reshape(-1)  # a copy, as data is not contiguous
                self._bcast_in_place(flat, root=0)
                data[...] = flat.reshape(data.shape)

    # ------------------------------------------------------------- in-place helpers

    def _mean_in_place(self, grad: Any, scale: float) -> None:
        """Replaces ``grad`` by ``scale`` times its sum over all ranks, with one MPI call.

        The array travels in ``allreduce_grad_dtype`` when set; a contiguous
        array already of that dtype is reduced in place, without a copy.
        """
        transfer_dtype = self.allreduce_grad_dtype
        if (transfer_dtype is None or transfer_dtype == grad.dtype) and grad.flags.c_contiguous:
            flat = grad.reshape(-1)
            flat *= grad.dtype.type(scale)
            self._sum_in_place(flat)
            return
        xp = backend.get_array_module(grad)
        flat = xp.empty(grad.size, dtype=grad.dtype if transfer_dtype is None else transfer_dtype)
        xp.multiply(grad.reshape(-1), grad.dtype.type(scale), out=flat, casting='same_kind')
        self._sum_in_place(flat)
        grad[...] = flat.reshape(grad.shape)

    def _sum_in_place(self, flat: Any) -> None:
        """Replaces the flat contiguous array ``flat`` by its sum over all ranks."""
        MPI = _mpi.get_mpi()
        datatype, op, host_only = _mpi.sum_spec(flat.dtype)
        view = flat.view(numpy.uint16) if flat.dtype == numpy.float16 else flat
        with _arrays.mpi_buffer(view, writeback=True, host_only=host_only) as buf:
            message = [buf, datatype]
            if self._intra_comm is None:
                self._mpi_comm.Allreduce(MPI.IN_PLACE, message, op=op)
                return
            if self._intra_comm.rank == 0:
                self._intra_comm.Reduce(MPI.IN_PLACE, message, op=op, root=0)
                self._leader_comm.Allreduce(MPI.IN_PLACE, message, op=op)
            else:
                self._intra_comm.Reduce(message, None, op=op, root=0)
            self._intra_comm.Bcast(message, root=0)

    def _bcast_in_place(self, flat: Any, root: int = 0) -> None:
        """Overwrites the flat contiguous array ``flat`` with ``root``'s."""
        MPI = _mpi.get_mpi()
        with _arrays.mpi_buffer(_arrays.byte_view(flat), writeback=self.rank != root) as buf:
            self._mpi_comm.Bcast([buf, MPI.BYTE], root=root)


def _layout(specs: Sequence[Any]) -> tuple[list[int], list[int]]:
    """Byte counts and displacements of consecutive arrays."""
    counts = [spec.nbytes for spec in specs]
    displs = [0] * len(counts)
    for i in range(1, len(counts)):
        displs[i] = displs[i - 1] + counts[i - 1]
    return counts, displs
