"""catena-cuda's communicators for :mod:`catena.distributed`: ``pure_nccl`` (NCCL on GPUs).

Installing catena-cuda makes ``catena.distributed.create_communicator('pure_nccl')``
(ChainerMN's default) available; :func:`communicators` feeds the core's
``catena_register_communicators`` hook. Importing this package imports
neither CuPy nor mpi4py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena_cuda.distributed.pure_nccl import PureNcclCommunicator


def communicators() -> dict[str, Callable[..., Any]]:
    """The communicator factories catena-cuda registers, by name.

    Returns:
        ``{'pure_nccl': PureNcclCommunicator}``; ``create_communicator`` calls
        the factory with ``mpi_comm``, ``allreduce_grad_dtype``,
        ``batched_copy`` and the remaining keyword arguments.
    """
    return {'pure_nccl': PureNcclCommunicator}


__all__ = ['PureNcclCommunicator', 'communicators']
