"""Updaters: one training step each (``catena.training.updaters``)."""

from __future__ import annotations

from catena.training.updaters.multiprocess_parallel_updater import MultiprocessParallelUpdater
from catena.training.updaters.parallel_updater import ParallelUpdater
from catena.training.updaters.standard_updater import StandardUpdater

__all__ = ['MultiprocessParallelUpdater', 'ParallelUpdater', 'StandardUpdater']
