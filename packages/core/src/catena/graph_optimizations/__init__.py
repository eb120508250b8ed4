"""Static subgraph optimizations (Chainer's ``chainer.graph_optimizations``).

:func:`static_graph` marks a chain whose ``__call__`` always builds the same
graph, and :func:`static_code` marks side-effect code that must run on every
call. See :mod:`catena.graph_optimizations.static_graph` for what catena does
with them.
"""

from __future__ import annotations

from catena.graph_optimizations.static_graph import (
    ScheduleManager,
    StaticScheduleFunction,
    static_graph,
)
from catena.graph_optimizations.static_graph_utilities import static_code

__all__ = ['ScheduleManager', 'StaticScheduleFunction', 'static_code', 'static_graph']
