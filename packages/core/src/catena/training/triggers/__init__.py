"""Triggers: callables ``trigger(trainer) -> bool`` that decide when things run."""

from catena.training.triggers.early_stopping import EarlyStoppingTrigger
from catena.training.triggers.interval import IntervalTrigger
from catena.training.triggers.manual_schedule import ManualScheduleTrigger
from catena.training.triggers.minmax_value import (
    BestValueTrigger,
    MaxValueTrigger,
    MinValueTrigger,
)
from catena.training.triggers.once import OnceTrigger
from catena.training.triggers.time import TimeTrigger

__all__ = [
    'BestValueTrigger', 'EarlyStoppingTrigger', 'IntervalTrigger', 'ManualScheduleTrigger',
    'MaxValueTrigger', 'MinValueTrigger', 'OnceTrigger', 'TimeTrigger',
]
