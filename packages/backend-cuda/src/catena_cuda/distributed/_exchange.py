"""The NCCL side of ``pure_nccl`` for one rank, written against :class:`NcclBackend`.

It holds everything but MPI: the lazy NCCL connection (bootstrapped through
the communicator's object collectives), the mean of a model's gradients
through packed buffers, the broadcast of its parameters, and the in-place sum
of one array. With a host fake of the backend it runs in one process without
a GPU, which is how it is tested.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy

import catena
from catena.distributed._packing import Packer
from catena.distributed.communicators.base import initialized_params, params_with_grads
from catena_cuda.distributed._nccl import NcclBackend, NcclComm


class ObjectCollectives(Protocol):
    """The MPI object collectives that bootstrap NCCL (a communicator has them)."""

    def bcast_obj(self, obj: Any, max_buf_len: int = ..., root: int = 0) -> Any:
        """Returns ``root``'s object on every rank."""

    def allgather_obj(self, obj: Any) -> list[Any]:
        """Returns every rank's object, in rank order."""


def wire_dtype(allreduce_grad_dtype: numpy.dtype | None) -> numpy.dtype | None:
    """The dtype gradients are summed in; None for each gradient's own dtype.

    ``allreduce_grad_dtype`` when set. Otherwise, as ChainerMN's pure_nccl
    did, float16 when ``catena.config.dtype`` is float16 or ``mixed16``; with
    any other default dtype each gradient keeps its own (ChainerMN cast them
    all to the default dtype, float32, which rounded float64 gradients).
    """
    if allreduce_grad_dtype is not None:
        return numpy.dtype(allreduce_grad_dtype)
    if catena.get_dtype() == numpy.float16:
        return numpy.dtype(numpy.float16)
    return None


def shared_gpus(placements: Sequence[tuple[Any, int]]) -> tuple[int, int, int] | None:
    """Finds two ranks of one node on the same GPU, which NCCL refuses.

    Args:
        placements: ``(node, gpu)`` of every rank, in rank order.

    Returns:
        ``(first rank, second rank, gpu)`` of the first clash, or None.
    """
    seen: dict[tuple[Any, int], int] = {}
    for rank, placement in enumerate(placements):
        if placement in seen:
            return seen[placement], rank, placement[1]
        seen[placement] = rank
    return None


class NcclExchange:
    """One rank's NCCL communication: connection, gradient mean, broadcast, sum.

    The NCCL communicator is created by the first operation that has arrays
    to move, on their GPU, which every rank reaches together (ChainerMN
    created it at the same point, on the current GPU: the user had selected
    the rank's GPU with ``get_device_from_id(comm.intra_rank).use()`` and
    moved the model there). Rank 0 makes the unique id and ``bcast_obj``
    sends it to the others.

    Args:
        backend: The NCCL library (:class:`~catena_cuda.distributed._nccl.CupyNccl`).
        rank: This process's rank.
        size: The number of ranks.
        inter_rank: The index of this process's node (ranks of a node need
            distinct GPUs).
        objects: The object collectives of the ranks (the communicator).
        bucket_bytes: The largest packed buffer in bytes, or None for one
            buffer per dtype.
    """

    def __init__(self, backend: NcclBackend, *, rank: int, size: int, inter_rank: int,
                 objects: ObjectCollectives, bucket_bytes: int | None = None) -> None:
        self.backend = backend
        self.rank = rank
        self.size = size
        self.inter_rank = inter_rank
        self._objects = objects
        self.grad_packer = Packer(bucket_bytes)
        self.data_packer = Packer(bucket_bytes)
        self.comm: NcclComm | None = None

    @property
    def bucket_bytes(self) -> int | None:
        """The largest packed buffer in bytes (None: one buffer per dtype)."""
        return self.grad_packer.bucket_bytes

    @bucket_bytes.setter
    def bucket_bytes(self, value: int | None) -> None:
        self.grad_packer.bucket_bytes = value
        self.data_packer.bucket_bytes = value

    # ------------------------------------------------------------- models

    def mean_grad(self, model: Any, zero_fill: bool,
                  allreduce_grad_dtype: numpy.dtype | None) -> None:
        """Replaces every gradient of ``model`` by its mean over the ranks (collective).

        The gradients are multiplied by ``1 / size`` in their own dtype, cast
        to the wire dtype (:func:`wire_dtype`) and packed into one buffer per
        dtype (or buckets), each buffer is summed in place by one NCCL
        all-reduce, and the sums are cast back into the gradients.
        """
        params = params_with_grads(model, zero_fill)
        grads = [param.grad for param in params]
        self.mean_arrays(grads, allreduce_grad_dtype,
                         lambda i: f'the gradient of {_param_name(model, params[i])}')

    def bcast_data(self, model: Any, root: int = 0) -> None:
        """Overwrites every rank's parameters of ``model`` with ``root``'s (collective)."""
        params = initialized_params(model)
        arrays = [param.array for param in params]
        if not arrays:
            return
        comm = self._connect(arrays, lambda i: f'parameter {_param_name(model, params[i])}',
                             'bcast_data')
        with self.backend.on_device(comm.device):
            for buffer in self.data_packer.pack(arrays):
                if buffer.size:
                    comm.bcast(buffer, root)
            if self.rank != root:
                self.data_packer.unpack(arrays)
        # Broadcasts are rare (once per training): keep no copy of the model.
        self.data_packer.release()

    # ------------------------------------------------------------- arrays

    def mean_arrays(self, grads: list[Any], allreduce_grad_dtype: numpy.dtype | None,
                    describe: Callable[[int], str]) -> None:
        """Replaces each device array of ``grads`` by its mean over the ranks (collective).

        ``describe(i)`` names the i-th array in error messages.
        """
        if not grads:
            return
        comm = self._connect(grads, describe, 'multi_node_mean_grad')
        with self.backend.on_device(comm.device):
            buffers = self.grad_packer.pack(grads, dtype=wire_dtype(allreduce_grad_dtype),
                                            scale=1.0 / self.size)
            for buffer in buffers:
                if buffer.size:
                    comm.all_reduce_sum(buffer, buffer)
            self.grad_packer.unpack(grads)

    def sum_in_place(self, flat: Any) -> None:
        """Replaces the flat, C-contiguous device array ``flat`` by its sum over the ranks."""
        if flat.size == 0:
            return
        comm = self._connect([flat], lambda i: 'the array', 'allreduce')
        with self.backend.on_device(comm.device):
            comm.all_reduce_sum(flat, flat)

    def close(self) -> None:
        """Destroys the NCCL communicator and frees the buffers."""
        if self.comm is not None:
            self.comm.destroy()
            self.comm = None
        self.grad_packer.release()
        self.data_packer.release()

    # ------------------------------------------------------------- internals

    def _connect(self, arrays: Sequence[Any], describe: Callable[[int], str],
                 what: str) -> NcclComm:
        device = self._device_of(arrays, describe, what)
        if self.comm is None:
            placements = self._objects.allgather_obj((self.inter_rank, device))
            clash = shared_gpus(placements)
            if clash is not None:
                first, second, gpu = clash
                raise ValueError(
                    f'pure_nccl: ranks {first} and {second} are on the same node and both use '
                    f'GPU {gpu}; NCCL needs one GPU per rank. Select the GPU of '
                    f'comm.intra_rank on each rank before the first collective, e.g. '
                    f"catena.get_device(f'@cupy:{{comm.intra_rank}}').use() and "
                    f'model.to_device(...) there')
            unique_id = self.backend.unique_id() if self.rank == 0 else None
            unique_id = self._objects.bcast_obj(unique_id, root=0)
            self.comm = self.backend.connect(self.size, unique_id, self.rank, device)
        elif self.comm.device != device:
            raise ValueError(
                f'pure_nccl: {what} got arrays on GPU {device}, but this rank set up NCCL on '
                f'GPU {self.comm.device} (the GPU of its first collective); keep the model on '
                f'one GPU per rank')
        return self.comm

    def _device_of(self, arrays: Sequence[Any], describe: Callable[[int], str],
                   what: str) -> int:
        device = None
        for i, array in enumerate(arrays):
            if not self.backend.accepts(array):
                kind = f'{type(array).__module__}.{type(array).__name__}'
                raise TypeError(f'pure_nccl needs GPU arrays (cupy.ndarray); {describe(i)} in '
                                f'{what} is a {kind}. Use create_communicator("flat") (or '
                                f'"naive") for CPU arrays.')
            here = self.backend.device_of(array)
            if device is None:
                device = here
            elif here != device:
                raise ValueError(f'pure_nccl: {what} got arrays on GPU {device} and GPU {here} '
                                 f'({describe(i)}); a rank moves the arrays of one GPU')
        assert device is not None
        return device


def _param_name(model: Any, param: Any) -> str:
    for name, candidate in model.namedparams():
        if candidate is param:
            return repr(name)
    return repr(getattr(param, 'name', None))
