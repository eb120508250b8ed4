"""TimeTrigger: fires each period of the trainer's elapsed time (a fake clock here)."""

import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location(
    "_training_fakes", pathlib.Path(__file__).parents[1] / "_fakes.py")
fakes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fakes)

import pytest  # noqa: E402

from catena.training.triggers import TimeTrigger  # noqa: E402


def fired_at(trigger, trainer, times):
    fired = []
    for elapsed in times:
        trainer.elapsed_time = elapsed
        if trigger(trainer):
            fired.append(elapsed)
    return fired


def test_fires_after_each_period():
    times = [0.5, 1.0, 1.5, 1.9, 2.5, 2.6, 3.01, 3.5]
    assert fired_at(TimeTrigger(1), fakes.FakeTrainer(), times) == [1.5, 2.5, 3.01]


def test_a_long_pause_is_caught_up_one_period_per_call():
    # As in Chainer: the next firing time moves by one period per firing.
    times = [5.0, 5.1, 5.2, 5.3, 5.4, 5.5]
    assert fired_at(TimeTrigger(1), fakes.FakeTrainer(), times) == [5.0, 5.1, 5.2, 5.3, 5.4]


def test_resume_keeps_the_next_firing_time():
    first = TimeTrigger(2.0)
    assert fired_at(first, fakes.FakeTrainer(), [1.0, 2.5, 3.0]) == [2.5]
    stored = {}
    first.serialize(fakes.DictSerializer(stored))
    assert set(stored) == {'next_time'}
    resumed = TimeTrigger(2.0)
    resumed.serialize(fakes.DictDeserializer(stored))
    assert fired_at(resumed, fakes.FakeTrainer(), [3.5, 4.2, 5.0, 6.5]) == [4.2, 6.5]


@pytest.mark.parametrize('period, error', [(0, ValueError), (-1.0, ValueError),
                                           ('1', TypeError), (None, TypeError)])
def test_bad_period(period, error):
    with pytest.raises(error, match='period'):
        TimeTrigger(period)
