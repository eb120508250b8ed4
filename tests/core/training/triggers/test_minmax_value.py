"""BestValueTrigger, MaxValueTrigger and MinValueTrigger over reported values."""

import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location(
    "_training_fakes", pathlib.Path(__file__).parents[1] / "_fakes.py")
fakes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fakes)

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import catena  # noqa: E402
from catena.training.triggers import (  # noqa: E402
    BestValueTrigger,
    MaxValueTrigger,
    MinValueTrigger,
)

# Per-iteration values; their means over pairs are 4, 4, 3, 3, 0.5, 6.
LOSSES = [5, 3, 4, 4, 1, 5, 3, 3, 0, 1, 6, 6]


def observe_losses(iteration, key='main/loss', wrap=float):
    return {key: wrap(LOSSES[iteration - 1]), 'other': 100.0}


def test_min_value_fires_at_each_new_minimum_of_the_interval_mean():
    trigger = MinValueTrigger('main/loss', trigger=(2, 'iteration'))
    assert fakes.run(trigger, fakes.FakeTrainer(), 12, observe_losses) == [2, 6, 10]


def test_max_value_fires_at_each_new_maximum_of_the_interval_mean():
    trigger = MaxValueTrigger('main/loss', trigger=(2, 'iteration'))
    assert fakes.run(trigger, fakes.FakeTrainer(), 12, observe_losses) == [2, 12]


def test_reported_variables_and_zero_dim_arrays_are_summarized():
    def observe(iteration):
        value = np.asarray(LOSSES[iteration - 1], dtype=np.float32)
        return {'main/loss': catena.Variable(value) if iteration % 2 else value}

    trigger = MinValueTrigger('main/loss', trigger=(2, 'iteration'))
    assert fakes.run(trigger, fakes.FakeTrainer(), 12, observe) == [2, 6, 10]


def test_best_value_with_a_custom_comparison():
    # "Better" means closer to 3.
    trigger = BestValueTrigger('main/loss', lambda best, new: abs(new - 3) < abs(best - 3),
                               trigger=(2, 'iteration'))
    assert fakes.run(trigger, fakes.FakeTrainer(), 12, observe_losses) == [2, 6]


def test_intervals_without_the_key_do_not_fire_and_keep_summing():
    def observe(iteration):
        return {} if iteration <= 2 else observe_losses(iteration)

    trigger = MinValueTrigger('main/loss', trigger=(2, 'iteration'))
    assert fakes.run(trigger, fakes.FakeTrainer(), 6, observe) == [4, 6]


def test_epoch_interval_by_default():
    trigger = MaxValueTrigger('main/loss')
    # dataset 40, batch 8: epochs end at iterations 5 and 10; means 3.4 and 2.4
    assert fakes.run(trigger, fakes.FakeTrainer(), 12, observe_losses) == [5]


def save(trigger):
    target = {}
    trigger.serialize(fakes.DictSerializer(target))
    return target


@pytest.mark.parametrize('stop_at', [0, 1, 3, 5, 6, 7])
def test_resume_matches_an_uninterrupted_run(stop_at):
    def make():
        return MinValueTrigger('main/loss', trigger=(2, 'iteration'))

    straight = fakes.run(make(), fakes.FakeTrainer(), 12, observe_losses)
    assert straight == [2, 6, 10]
    first = make()
    before = fakes.run(first, fakes.FakeTrainer(), stop_at, observe_losses)
    resumed = make()
    resumed.serialize(fakes.DictDeserializer(save(first)))

    trainer = fakes.FakeTrainer(fakes.FakeUpdater(iteration=stop_at))
    assert before + fakes.run(resumed, trainer, 12 - stop_at, observe_losses) == straight


def test_serialized_keys():
    trigger = MinValueTrigger('main/loss', trigger=(2, 'iteration'))
    fakes.run(trigger, fakes.FakeTrainer(), 3, observe_losses)
    assert set(save(trigger)) == {
        'interval_trigger/previous_iteration', 'interval_trigger/previous_epoch_detail',
        'summary/_names', 'summary/_summaries/0/_x', 'summary/_summaries/0/_x2',
        'summary/_summaries/0/_n', 'best_value'}


def test_compare_must_be_callable():
    with pytest.raises(TypeError, match='compare'):
        BestValueTrigger('main/loss', 'max')
