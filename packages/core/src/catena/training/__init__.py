"""Training loops: the Trainer, updaters, extensions and triggers (``catena.training``)."""

from __future__ import annotations

from catena.training import extension, extensions, trigger, triggers, updater, updaters, util
from catena.training.extension import (
    PRIORITY_EDITOR,
    PRIORITY_READER,
    PRIORITY_WRITER,
    Extension,
    make_extension,
)
from catena.training.trainer import Trainer
from catena.training.trigger import get_trigger
from catena.training.triggers import IntervalTrigger
from catena.training.updater import Updater
from catena.training.updaters import ParallelUpdater, StandardUpdater

__all__ = [
    'PRIORITY_EDITOR', 'PRIORITY_READER', 'PRIORITY_WRITER', 'Extension', 'IntervalTrigger',
    'ParallelUpdater', 'StandardUpdater', 'Trainer', 'Updater', 'extension', 'extensions',
    'get_trigger', 'make_extension', 'trigger', 'triggers', 'updater', 'updaters', 'util',
]
