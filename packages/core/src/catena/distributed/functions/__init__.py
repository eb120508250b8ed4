"""Differentiable communication between ranks (ChainerMN's ``chainermn.functions``).

Point to point: :func:`send` and :func:`recv` (with :func:`pseudo_connect` to
keep a rank's graph connected); collectives: :func:`bcast`, :func:`gather`,
:func:`scatter`, :func:`allgather`, :func:`alltoall`. Each backward runs the
transposed communication, so every rank must backpropagate through the same
communications in the same order.
"""

from __future__ import annotations

from catena.distributed.functions.collective import (
    allgather,
    alltoall,
    bcast,
    gather,
    scatter,
)
from catena.distributed.functions.point_to_point import pseudo_connect, recv, send

__all__ = ['allgather', 'alltoall', 'bcast', 'gather', 'pseudo_connect', 'recv', 'scatter',
           'send']
