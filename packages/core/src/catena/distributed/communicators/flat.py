"""The ``flat`` communicator: gradients packed into a few large buffers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena.distributed._packing import Packer
from catena.distributed.communicators.base import (
    check_not_diverged,
    checked_size,
    grads_to_average,
    initialized_params,
)
from catena.distributed.communicators.mpi_base import MpiCommunicatorBase

_MIB = 1024 * 1024


class FlatCommunicator(MpiCommunicatorBase):
    """Averages gradients and broadcasts parameters through packed buffers.

    The gradients of at most ``pack_max_kb`` KiB are copied (divided by the
    number of ranks, cast to ``allreduce_grad_dtype`` when set) into flat
    buffers of at most ``bucket_size_mb`` MiB each, every buffer is summed
    with one MPI call, and the results are copied back. A model with many
    small parameters then pays the network latency a few times per step
    instead of once per parameter. Larger gradients are summed in place, one
    call each: copying them would cost more than the latency it saves. The
    buffers are kept between steps.

    Args:
        mpi_comm: See :class:`MpiCommunicatorBase`.
        bucket_size_mb: The largest buffer in MiB, or None (the default, as
            ChainerMN's ``flat``) for one buffer per dtype. A bucket holds at
            least one array, so ``0`` sends each array separately (packing off).
        pack_max_kb: The largest gradient, in KiB, that is packed; None packs
            every gradient (as ChainerMN's ``flat`` did). Parameters for
            :meth:`bcast_data` are always packed.
        options: The other keyword arguments of :class:`MpiCommunicatorBase`.
    """

    def __init__(self, mpi_comm: Any = None, *, bucket_size_mb: float | None = None,
                 pack_max_kb: float | None = 64, **options: Any) -> None:
        super().__init__(mpi_comm, **options)
        self._grad_packer = Packer()
        self._data_packer = Packer()
        self.bucket_size_mb = bucket_size_mb
        self.pack_max_kb = pack_max_kb

    @property
    def bucket_size_mb(self) -> float | None:
        """The largest packed buffer in MiB (None: no limit). Settable between steps."""
        return self._bucket_size_mb

    @bucket_size_mb.setter
    def bucket_size_mb(self, value: float | None) -> None:
        self._bucket_size_mb = checked_size('bucket_size_mb', value)
        limit = None if value is None else int(value * _MIB)
        self._grad_packer.bucket_bytes = limit
        self._data_packer.bucket_bytes = limit

    @property
    def pack_max_kb(self) -> float | None:
        """The largest gradient in KiB that is packed (None: all). Settable between steps."""
        return self._pack_max_kb

    @pack_max_kb.setter
    def pack_max_kb(self, value: float | None) -> None:
        self._pack_max_kb = checked_size('pack_max_kb', value)
        self._pack_max_bytes = None if value is None else value * 1024

    def _config_names(self) -> tuple[str, ...]:
        return super()._config_names() + ('bucket_size_mb', 'pack_max_kb')

    def _settings(self) -> dict[str, Any]:
        return {**super()._settings(), 'bucket_size_mb': self._bucket_size_mb,
                'pack_max_kb': self._pack_max_kb}

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        grads = grads_to_average(model, zero_fill)
        self._mean_grad_arrays(grads)
        check_not_diverged(grads)

    def _mean_grad_arrays(self, grads: Sequence[Any]) -> None:
        scale = 1.0 / self.size
        limit = self._pack_max_bytes
        packed = []
        for grad in grads:
            if limit is None or grad.nbytes <= limit:
                packed.append(grad)
            else:
                self._mean_in_place(grad, scale)
        if not packed:
            return
        buffers = self._grad_packer.pack(packed, dtype=self.allreduce_grad_dtype, scale=scale)
        for buffer in buffers:
            self._sum_in_place(buffer)
        self._grad_packer.unpack(packed)

    def bcast_data(self, model: Any) -> None:
        arrays = [param.array for param in initialized_params(model)]
        for buffer in self._data_packer.pack(arrays):
            self._bcast_in_place(buffer, root=0)
        if self.rank != 0:
            self._data_packer.unpack(arrays)

    def finalize(self) -> None:
        self._grad_packer.release()
        self._data_packer.release()
        super().finalize()
