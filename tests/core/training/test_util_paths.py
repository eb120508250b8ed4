"""Chainer's module paths in catena.training: util and the IntervalTrigger alias."""

from catena import training
from catena.training import triggers, util


def test_util_get_trigger():
    trigger = util.get_trigger((2, 'iteration'))
    assert isinstance(trigger, triggers.IntervalTrigger)
    assert trigger.period == 2
    assert util.get_trigger(None)(None) is False
    assert util.get_trigger is training.get_trigger


def test_interval_trigger_alias():
    assert training.IntervalTrigger is triggers.IntervalTrigger
