"""get_trigger: None, callables and (period, unit) pairs; clean imports in any order."""

import subprocess
import sys

import pytest

from catena import training
from catena.training import trigger as trigger_module
from catena.training.triggers import IntervalTrigger


def test_none_never_fires():
    trigger = trigger_module.get_trigger(None)

    class Trainer:
        pass

    assert not any(trigger(Trainer()) for _ in range(100))


def test_callable_is_returned_as_it_is():
    def every_time(trainer):
        return True

    assert trigger_module.get_trigger(every_time) is every_time
    interval = IntervalTrigger(2, 'iteration')
    assert trigger_module.get_trigger(interval) is interval


@pytest.mark.parametrize('spec', [(3, 'iteration'), [0.5, 'epoch'], (2, 'epoch')])
def test_pair_makes_an_interval_trigger(spec):
    trigger = trigger_module.get_trigger(spec)
    assert isinstance(trigger, IntervalTrigger)
    assert (trigger.period, trigger.unit) == tuple(spec)
    assert trigger.get_training_length() == tuple(spec)


@pytest.mark.parametrize('spec', [5, 'epoch', (1,), (1, 'epoch', 2), (1, 'epochs'),
                                  (0, 'epoch'), (-2, 'iteration'), ('1', 'epoch'),
                                  (1.5, 'iteration')])
def test_bad_trigger_is_a_value_error_naming_it(spec):
    with pytest.raises(ValueError, match='trigger'):
        trigger_module.get_trigger(spec)


def test_training_exports_get_trigger():
    assert training.get_trigger is trigger_module.get_trigger


@pytest.mark.parametrize('module', ['catena.training.trigger',
                                    'catena.training.triggers.minmax_value',
                                    'catena.training.triggers.early_stopping'])
def test_imports_first_in_a_fresh_interpreter(module):
    code = f'import {module}, catena.training as t; t.get_trigger((1, "epoch"))'
    result = subprocess.run([sys.executable, '-W', 'error', '-c', code],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
