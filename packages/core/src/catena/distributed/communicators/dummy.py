"""The ``dummy`` communicator: one process, no MPI."""

from __future__ import annotations

import collections
import copy
from collections.abc import Sequence
from typing import Any

from catena.distributed._packing import Packer
from catena.distributed.communicators.base import (
    MAX_BUF_LEN,
    CommunicatorBase,
    _check_model,
    checked_size,
    grads_to_average,
)


class DummyCommunicator(CommunicatorBase):
    """A communicator of one process (rank 0 of 1) that needs neither MPI nor mpi4py.

    Every collective returns what a one-process MPI job would: ``bcast``
    returns its argument, ``gather`` a one-element tuple, and so on;
    ``send``/``recv`` to rank 0 go through a local queue. It lets a
    distributed training script run, and its code be tested, in a plain
    Python process. :meth:`multi_node_mean_grad` still packs the gradients
    (casting them to ``allreduce_grad_dtype``) and unpacks them, so it
    measures the cost of everything but the communication.

    Args:
        mpi_comm: Must be None (the dummy communicator uses no MPI).
        allreduce_grad_dtype: See :class:`CommunicatorBase`.
        batched_copy: See :class:`CommunicatorBase`.
        bucket_size_mb: As for the ``flat`` communicator.
    """

    def __init__(self, mpi_comm: Any = None, *, allreduce_grad_dtype: Any = None,
                 batched_copy: bool = True, bucket_size_mb: float | None = None) -> None:
        if mpi_comm is not None:
            raise ValueError('the dummy communicator runs in one process without MPI; '
                             f'mpi_comm must be None, got {type(mpi_comm).__name__}')
        super().__init__(allreduce_grad_dtype=allreduce_grad_dtype, batched_copy=batched_copy)
        self._bucket_size_mb = checked_size('bucket_size_mb', bucket_size_mb)
        self._packer = Packer(None if bucket_size_mb is None else int(bucket_size_mb * 2 ** 20))
        self._queues: dict[Any, collections.deque[Any]] = collections.defaultdict(
            collections.deque)

    def __repr__(self) -> str:
        return '<DummyCommunicator rank 0 of 1>'

    @property
    def mpi_comm(self) -> None:
        """None: the dummy communicator uses no MPI."""
        return None

    @property
    def rank(self) -> int:
        return 0

    @property
    def size(self) -> int:
        return 1

    @property
    def intra_rank(self) -> int:
        return 0

    @property
    def intra_size(self) -> int:
        return 1

    @property
    def inter_rank(self) -> int:
        return 0

    @property
    def inter_size(self) -> int:
        return 1

    def split(self, color: int, key: int) -> DummyCommunicator:
        return DummyCommunicator(allreduce_grad_dtype=self.allreduce_grad_dtype,
                                 batched_copy=self.batched_copy,
                                 bucket_size_mb=self._bucket_size_mb)

    def _check_self(self, rank: Any, name: str) -> None:
        if rank != 0:
            raise ValueError(f'{name} must be 0 (the dummy communicator has one rank), got '
                             f'{rank!r}')

    # ------------------------------------------------------------- arrays

    def send(self, data: Any, dest: int, tag: int = 0) -> None:
        self._check_self(dest, 'dest')
        if isinstance(data, (tuple, list)):
            self._queues['array', tag].append(tuple(x.copy() for x in data))
        else:
            self._queues['array', tag].append(data.copy())

    def recv(self, source: int, tag: int = 0) -> Any:
        self._check_self(source, 'source')
        return self._pop(('array', tag))

    def bcast(self, x: Any, root: int = 0) -> Any:
        self._check_self(root, 'root')
        return x

    def gather(self, x: Any, root: int = 0) -> tuple[Any, ...]:
        self._check_self(root, 'root')
        return (x.copy(),)

    def allgather(self, x: Any) -> tuple[Any, ...]:
        return (x.copy(),)

    def allreduce(self, x: Any) -> Any:
        return x.copy()

    def alltoall(self, xs: Sequence[Any]) -> tuple[Any, ...]:
        if not isinstance(xs, (tuple, list)) or len(xs) != 1:
            raise TypeError(f'xs must be a tuple or list of 1 array, got {xs!r}')
        return (xs[0].copy(),)

    def scatter(self, xs: Any, root: int = 0) -> Any:
        self._check_self(root, 'root')
        if len(xs) != 1:
            raise TypeError(f'xs must hold 1 array (one per rank), got {len(xs)}')
        return xs[0].copy()

    # ------------------------------------------------------------- objects

    def send_obj(self, obj: Any, dest: int, tag: int = 0) -> None:
        self._check_self(dest, 'dest')
        self._queues['object', tag].append(copy.deepcopy(obj))

    def recv_obj(self, source: int, status: Any = None, tag: int | None = None) -> Any:
        self._check_self(source, 'source')
        if tag is None:
            for (kind, _), queue in self._queues.items():
                if kind == 'object' and queue:
                    return queue.popleft()
            raise RuntimeError('recv_obj: nothing was sent (with one process, MPI would wait '
                               'forever)')
        return self._pop(('object', tag))

    def _pop(self, key: tuple[str, Any]) -> Any:
        queue = self._queues[key]
        if not queue:
            raise RuntimeError(f'recv: nothing was sent with tag {key[1]} (with one process, '
                               f'MPI would wait forever)')
        return queue.popleft()

    def bcast_obj(self, obj: Any, max_buf_len: int = MAX_BUF_LEN, root: int = 0) -> Any:
        self._check_self(root, 'root')
        return obj

    def gather_obj(self, obj: Any, root: int = 0) -> list[Any]:
        self._check_self(root, 'root')
        return [obj]

    def allgather_obj(self, obj: Any) -> list[Any]:
        return [obj]

    def allreduce_obj(self, obj: Any) -> Any:
        return obj

    def scatter_obj(self, objs: Any, root: int = 0) -> Any:
        self._check_self(root, 'root')
        if len(objs) != 1:
            raise TypeError(f'objs must hold 1 object (one per rank), got {len(objs)}')
        return objs[0]

    # ------------------------------------------------------------- models

    def bcast_data(self, model: Any) -> None:
        _check_model(model)

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        self._mean_grad_arrays(grads_to_average(model, zero_fill))

    def _mean_grad_arrays(self, grads: Sequence[Any]) -> None:
        self._packer.pack(grads, dtype=self.allreduce_grad_dtype, scale=1.0)
        self._packer.unpack(grads)

    def finalize(self) -> None:
        self._packer.release()
        self._queues.clear()
