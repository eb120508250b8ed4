"""Data parallelism over GPU worker processes with NCCL (the updater is not implemented).

The helpers that pack the parameters or gradients of a link into one vector
for an all-reduce (:func:`gather_grads`, :func:`scatter_grads`...) are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from catena import backend
from catena.dataset import convert
from catena.training.updater import Updater


class MultiprocessParallelUpdater(Updater):
    """One worker process per GPU, gradients all-reduced with NCCL (not implemented).

    catena does not implement this updater. The same training, one process
    per GPU with gradients averaged over NCCL, is ``catena.distributed``
    with the ``pure_nccl`` communicator of catena-cuda, started with
    ``mpiexec``; inside one process, :class:`ParallelUpdater` uses several
    devices.

    Args:
        iterators: One iterator per device.
        optimizer: The optimizer.
        converter: The converter.
        devices: The GPUs.
        auto_new_epoch: Whether to count epochs on the optimizer.
    """

    def __init__(self, iterators: Any, optimizer: Any,
                 converter: Callable[..., Any] = convert.concat_examples,
                 devices: Any = None, auto_new_epoch: bool = True) -> None:
        raise NotImplementedError(
            'MultiprocessParallelUpdater is not implemented in catena; for one process per '
            'GPU use catena.distributed with create_communicator("pure_nccl") (catena-cuda) '
            'under mpiexec, or ParallelUpdater for several devices in one process')

    @staticmethod
    def available() -> bool:
        """Whether this updater can run here (never: it is not implemented)."""
        return False


def _packed_params(link: Any) -> list[Any]:
    # The parameters in name order, without the empty ones (as Chainer packs them).
    return [param for _, param in sorted(link.namedparams()) if param.size]


def _gather(link: Any, attr: str) -> Any:
    params = _packed_params(link)
    if not params:
        return numpy.empty(0, numpy.float32)
    xp = backend.get_array_module(params[0].array)
    parts = []
    for param in params:
        array = getattr(param, attr)
        if array is None:
            parts.append(xp.zeros(param.size, numpy.float32))
        else:
            parts.append(array.ravel().astype(numpy.float32, copy=False))
    return xp.concatenate(parts)


def _scatter(link: Any, packed: Any, attr: str) -> None:
    params = _packed_params(link)
    total = sum(param.size for param in params)
    if packed.ndim != 1 or packed.size != total:
        raise ValueError(f'the packed array has shape {packed.shape}; the parameters of the '
                         f'link hold {total} values')
    offset = 0
    for param in params:
        target = getattr(param, attr)
        part = packed[offset:offset + param.size]
        offset += param.size
        if target is not None:
            target[...] = part.reshape(target.shape).astype(target.dtype, copy=False)


def _check_on_gpu(link: Any, name: str) -> None:
    if link.xp is numpy:
        raise RuntimeError(f'{name} works only on GPU: the parameters of the link are NumPy '
                           'arrays')


def gather_grads(link: Any) -> Any:
    """Packs the gradients of a link's parameters into one float32 vector (GPU only).

    The parameters are taken in the order of their names, empty ones left
    out; a missing gradient packs as zeros. It is the buffer that an
    all-reduce of the gradients sends (see :func:`scatter_grads`).

    Args:
        link: The link, on a GPU.

    Returns:
        A 1-D float32 array on the link's device.

    Raises:
        RuntimeError: The link is on the CPU.
    """
    _check_on_gpu(link, 'gather_grads')
    return _gather(link, 'grad')


def gather_params(link: Any) -> Any:
    """Packs the arrays of a link's parameters into one float32 vector (GPU only).

    Args:
        link: The link, on a GPU.

    Returns:
        A 1-D float32 array on the link's device (see :func:`gather_grads`).

    Raises:
        RuntimeError: The link is on the CPU.
    """
    _check_on_gpu(link, 'gather_params')
    return _gather(link, 'array')


def scatter_grads(link: Any, array: Any) -> None:
    """Copies a vector packed by :func:`gather_grads` back into the gradients.

    Each gradient is cast to its own dtype; parameters without a gradient
    are left alone.

    Args:
        link: The link.
        array: The packed vector.
    """
    _scatter(link, array, 'grad')


def scatter_params(link: Any, array: Any) -> None:
    """Copies a vector packed by :func:`gather_params` back into the parameters.

    Args:
        link: The link.
        array: The packed vector.
    """
    _scatter(link, array, 'array')
