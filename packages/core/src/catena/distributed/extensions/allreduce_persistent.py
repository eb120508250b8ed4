"""``AllreducePersistent``: average a model's floating-point persistent values over the ranks."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.distributed.communicators.base import CommunicatorBase
from catena.link import Link
from catena.training import extension


def _float_persistents(model: Link) -> list[tuple[str, Link, str]]:
    """``(path, link, name)`` of every floating-point persistent value, sorted by path."""
    found = []
    for path, link in model.namedlinks():
        prefix = path.rstrip('/')
        for name in link._persistent:
            value = getattr(link, name)
            if isinstance(value, bool):
                continue
            if isinstance(value, float) or (hasattr(value, 'dtype')
                                            and numpy.dtype(value.dtype).kind == 'f'):
                found.append((f'{prefix}/{name}', link, name))
    found.sort(key=lambda item: item[0])
    return found


class AllreducePersistent(extension.Extension):
    """Replaces the floating-point persistent values of a model by their mean over the ranks.

    The running statistics of batch normalization (``avg_mean``,
    ``avg_var``) are persistent values that each rank updates from its own
    batches only; averaging them makes them estimates over more examples
    and the same on every rank. Arrays are averaged in place; floating-point
    scalars are replaced. Integer (and boolean) persistent values, such as
    ``N``, are left alone. Call it (it is a collective call) before saving or
    evaluating the model; it need not run every iteration.

    Args:
        model: The link whose persistent values (and its descendants') are
            averaged. Every rank must hold the same structure.
        comm: The communicator.
    """

    trigger: Any = (1, 'epoch')
    priority = extension.PRIORITY_WRITER + 1  # before the evaluator and the reports

    def __init__(self, model: Link, comm: CommunicatorBase) -> None:
        if not isinstance(model, Link):
            raise TypeError(f'model must be a catena.Link, got {type(model).__name__}')
        if not isinstance(comm, CommunicatorBase):
            raise TypeError(f'comm must be a catena.distributed communicator, got '
                            f'{type(comm).__name__}')
        self.model = model
        self.comm = comm

    def __call__(self, trainer: Any = None) -> None:
        size = self.comm.size
        for _, link, name in _float_persistents(self.model):
            value = getattr(link, name)
            if isinstance(value, float):
                total = self.comm.allreduce(numpy.asarray(value, dtype=numpy.float64))
                setattr(link, name, float(total) / size)
                continue
            mean = self.comm.allreduce(value)
            mean /= mean.dtype.type(size)
            backend.copyto(value, mean)
