"""Communicators and the function that creates them by name (``create_communicator``).

Built in: ``'naive'`` (one MPI call per parameter), ``'flat'`` (gradients
packed into a few buffers) and ``'dummy'`` (one process, no MPI). Plugins add
more through the ``catena_register_communicators`` hook: catena-cuda adds
``'pure_nccl'``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from catena._install import install_hint
from catena.distributed.communicators.base import CommunicatorBase
from catena.distributed.communicators.dummy import DummyCommunicator
from catena.distributed.communicators.flat import FlatCommunicator
from catena.distributed.communicators.mpi_base import MpiCommunicatorBase, Topology
from catena.distributed.communicators.naive import NaiveCommunicator

BUILTIN_COMMUNICATORS: dict[str, Callable[..., CommunicatorBase]] = {
    'naive': NaiveCommunicator,
    'flat': FlatCommunicator,
    'dummy': DummyCommunicator,
}

# ChainerMN names that catena does not build in, and what to do instead.
_HINTS = {
    'pure_nccl': f'it is provided by catena-cuda ({install_hint("catena-cuda", "cuda12")}) '
                 'for CuPy arrays on '
                 'NVIDIA GPUs; for CPU arrays use naive or flat',
    'non_cuda_aware': 'catena has no such communicator; use pure_nccl (catena-cuda) on GPUs',
    'hierarchical': 'it was removed in Chainer 7; use create_communicator("flat", '
                    'hierarchical=True)',
    'two_dimensional': 'it was removed in Chainer 7; use create_communicator("flat", '
                       'hierarchical=True)',
    'single_node': 'it was removed in Chainer 7; use flat (or pure_nccl on GPUs)',
}


def _plugin_communicators() -> dict[str, Callable[..., CommunicatorBase]]:
    from catena.plugins import _manager

    found: dict[str, Callable[..., CommunicatorBase]] = {}
    for plugin, factories in _manager.call_each('catena_register_communicators'):
        if not isinstance(factories, dict):
            warnings.warn(f'plugin {plugin!r}: catena_register_communicators returned '
                          f'{type(factories).__name__}, expected a dict; ignored',
                          RuntimeWarning, stacklevel=3)
            continue
        for name, factory in factories.items():
            if name in BUILTIN_COMMUNICATORS:
                warnings.warn(f'plugin {plugin!r} registers the communicator {name!r}, which '
                              f'is built in; the built-in one is used', RuntimeWarning,
                              stacklevel=3)
            else:
                found.setdefault(name, factory)
    return found


def communicator_names() -> list[str]:
    """The names :func:`create_communicator` accepts here (built in and from plugins)."""
    return sorted({*BUILTIN_COMMUNICATORS, *_plugin_communicators()})


def create_communicator(communicator_name: str = 'pure_nccl', mpi_comm: Any = None,
                        allreduce_grad_dtype: Any = None, batched_copy: bool = True,
                        **kwargs: Any) -> CommunicatorBase:
    """Creates a communicator by name (ChainerMN's ``create_communicator``).

    Creating an MPI communicator imports mpi4py (which initializes MPI) and
    installs :mod:`catena.distributed.global_except_hook`.

    Args:
        communicator_name: ``'naive'`` or ``'flat'`` (MPI, CPU arrays, and
            device arrays through CUDA-aware MPI), ``'dummy'`` (one process,
            no MPI), or a plugin's name (``'pure_nccl'`` with catena-cuda,
            the default as in ChainerMN).
        mpi_comm: The ``mpi4py.MPI.Comm`` to run on (``MPI.COMM_WORLD`` when None).
        allreduce_grad_dtype: The dtype gradients travel in during
            ``multi_node_mean_grad`` (for example ``numpy.float16``), or None.
        batched_copy: Passed on (used by GPU communicators).
        kwargs: Further keyword arguments of the communicator class, for
            example ``hierarchical=True`` (naive, flat), ``bucket_size_mb``
            (flat), ``node_name`` (naive, flat).

    Returns:
        The communicator.
    """
    if not isinstance(communicator_name, str):
        raise TypeError(f'communicator_name must be a str, got '
                        f'{type(communicator_name).__name__}')
    factory = BUILTIN_COMMUNICATORS.get(communicator_name)
    if factory is None:
        factory = _plugin_communicators().get(communicator_name)
    if factory is None:
        hint = _HINTS.get(communicator_name)
        available = ', '.join(repr(name) for name in communicator_names())
        raise ValueError(f'unknown communicator {communicator_name!r}'
                         f'{f" ({hint})" if hint else ""}; available here: {available}')
    return factory(mpi_comm=mpi_comm, allreduce_grad_dtype=allreduce_grad_dtype,
                   batched_copy=batched_copy, **kwargs)


__all__ = [
    'BUILTIN_COMMUNICATORS', 'CommunicatorBase', 'DummyCommunicator', 'FlatCommunicator',
    'MpiCommunicatorBase', 'NaiveCommunicator', 'Topology', 'communicator_names',
    'create_communicator',
]
