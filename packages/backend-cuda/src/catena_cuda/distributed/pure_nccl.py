"""The ``pure_nccl`` communicator: MPI for objects and setup, NCCL for GPU arrays."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from catena.distributed.communicators.base import checked_size
from catena.distributed.communicators.mpi_base import MpiCommunicatorBase
from catena_cuda.distributed._exchange import NcclExchange
from catena_cuda.distributed._nccl import CupyNccl, NcclBackend

_MIB = 1024 * 1024


class PureNcclCommunicator(MpiCommunicatorBase):
    """Averages CuPy gradients and broadcasts CuPy parameters with NCCL.

    ChainerMN's ``PureNcclCommunicator``. The gradients are multiplied by
    ``1 / size`` in their own dtype, cast to the transfer dtype and packed into
    one GPU buffer per dtype (or buckets of ``bucket_size_mb``); each buffer is
    summed in place by one NCCL all-reduce on the current CUDA stream and cast
    back into the gradients. The division comes first (ChainerMN divided the
    sum) so that a float16 sum of large, loss-scaled gradients overflows only
    where their mean would. :meth:`bcast_data` broadcasts packed parameters
    with NCCL; ``allreduce`` of CuPy arrays sums them with NCCL. The other
    array and object methods (``send``, ``bcast``, ``gather``, ``bcast_obj``...)
    are those of :class:`~catena.distributed.MpiCommunicatorBase` over MPI.

    As in ChainerMN, each rank selects its GPU (normally
    ``comm.intra_rank``) and puts its model there before the first
    collective, e.g. ``catena.get_device(f'@cupy:{comm.intra_rank}').use()``;
    the NCCL communicator is created at the first collective, on the GPU of
    its arrays (rank 0 makes the NCCL unique id, ``bcast_obj`` sends it),
    and two ranks of a node on the same GPU raise an error on every rank.

    Args:
        mpi_comm: The ``mpi4py.MPI.Comm`` to use (``MPI.COMM_WORLD`` when None).
        allreduce_grad_dtype: The dtype gradients are summed in (for example
            ``numpy.float16`` to halve the traffic; the result is cast back).
            None: float16 when ``catena.config.dtype`` is float16 or
            ``mixed16`` (ChainerMN's rule), each gradient's own dtype otherwise.
        batched_copy: Accepted for ChainerMN compatibility; catena fills each
            buffer with one concatenation kernel either way.
        bucket_size_mb: The largest packed buffer in MiB, or None (as
            ChainerMN) for one buffer per dtype.
        node_name: See :class:`~catena.distributed.MpiCommunicatorBase`.
        hierarchical: Must be False: NCCL chooses its own intra- and
            inter-node algorithms (the option is for ``naive`` and ``flat``).

    Raises:
        RuntimeError: CuPy, a GPU or the NCCL library is missing here (the
            message says what to install), raised before MPI is started.
    """

    backend_factory: ClassVar[Callable[[], NcclBackend]] = CupyNccl
    """Makes the NCCL backend; tests replace it in a subclass."""

    def __init__(self, mpi_comm: Any = None, allreduce_grad_dtype: Any = None,
                 batched_copy: bool = True, *, bucket_size_mb: float | None = None,
                 node_name: str | None = None, hierarchical: bool = False) -> None:
        if hierarchical:
            raise ValueError('pure_nccl does not take hierarchical=True: NCCL picks its own '
                             'intra- and inter-node algorithms; the option is for naive and '
                             'flat')
        backend = type(self).backend_factory()
        super().__init__(mpi_comm, allreduce_grad_dtype=allreduce_grad_dtype,
                         batched_copy=batched_copy, node_name=node_name)
        self._exchange = NcclExchange(backend, rank=self.rank, size=self.size,
                                      inter_rank=self.inter_rank, objects=self)
        self.bucket_size_mb = bucket_size_mb

    @property
    def bucket_size_mb(self) -> float | None:
        """The largest packed buffer in MiB (None: one per dtype). Settable between steps."""
        return self._bucket_size_mb

    @bucket_size_mb.setter
    def bucket_size_mb(self, value: float | None) -> None:
        self._bucket_size_mb = checked_size('bucket_size_mb', value)
        self._exchange.bucket_bytes = None if value is None else int(value * _MIB)

    @property
    def nccl_comm(self) -> Any:
        """The ``cupy.cuda.nccl.NcclCommunicator`` (None before the first collective)."""
        comm = self._exchange.comm
        return None if comm is None else comm.handle

    def _config_names(self) -> tuple[str, ...]:
        return super()._config_names() + ('bucket_size_mb',)

    def _settings(self) -> dict[str, Any]:
        return {**super()._settings(), 'bucket_size_mb': self._bucket_size_mb}

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        self._exchange.mean_grad(model, zero_fill, self.allreduce_grad_dtype)

    def _mean_grad_arrays(self, grads: Sequence[Any]) -> None:
        self._exchange.mean_arrays(list(grads), self.allreduce_grad_dtype,
                                   lambda i: f'array {i} of the gradients')

    def bcast_data(self, model: Any) -> None:
        self._exchange.bcast_data(model)

    def _sum_in_place(self, flat: Any) -> None:
        # allreduce() of device arrays goes through NCCL, of NumPy arrays through MPI.
        if self._exchange.backend.accepts(flat):
            self._exchange.sum_in_place(flat)
        else:
            super()._sum_in_place(flat)

    def finalize(self) -> None:
        self._exchange.close()
        super().finalize()
