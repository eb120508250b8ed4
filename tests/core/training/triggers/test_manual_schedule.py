"""ManualScheduleTrigger: firing at given points, finished, and resuming."""

import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location(
    "_training_fakes", pathlib.Path(__file__).parents[1] / "_fakes.py")
fakes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fakes)

import pytest  # noqa: E402

from catena.training.triggers import ManualScheduleTrigger  # noqa: E402


def save(trigger):
    target = {}
    trigger.serialize(fakes.DictSerializer(target))
    return target


def test_iteration_points_and_finished():
    trigger = ManualScheduleTrigger([2, 5, 7], 'iteration')
    trainer = fakes.FakeTrainer()
    fired, finished = [], []
    for _ in range(10):
        trainer.updater.update()
        if trigger(trainer):
            fired.append(trainer.updater.iteration)
        finished.append(trigger.finished)
    assert fired == [2, 5, 7]
    assert finished == [False] * 6 + [True] * 4


def test_epoch_points_fire_at_the_first_iteration_reaching_them():
    # dataset 40, batch 8: epoch_detail 0.2, 0.4, ...; 1.5 is first reached at 1.6.
    trigger = ManualScheduleTrigger([0.4, 1.0, 1.5], 'epoch')
    assert fakes.run(trigger, fakes.FakeTrainer(), 12) == [2, 5, 8]
    assert trigger.finished


def test_single_point():
    trigger = ManualScheduleTrigger(3, 'iteration')
    assert trigger.points == [3]
    assert fakes.run(trigger, fakes.FakeTrainer(), 6) == [3]


def test_epoch_points_that_round_badly_still_fire_once():
    # 1 + 16/40 and the literal 1.4 are equal up to rounding only by luck; 0.6 and 1.2 too.
    trigger = ManualScheduleTrigger([0.6, 1.2, 1.4, 2.2], 'epoch')
    assert fakes.run(trigger, fakes.FakeTrainer(), 15) == [3, 6, 7, 11]


@pytest.mark.parametrize('unit, points', [('iteration', [2, 5, 9]), ('epoch', [0.4, 1.0, 1.5])])
@pytest.mark.parametrize('stop_at', [0, 3, 5, 9])
def test_resume_matches_an_uninterrupted_run(unit, points, stop_at):
    straight = fakes.run(ManualScheduleTrigger(points, unit), fakes.FakeTrainer(), 12)
    first = ManualScheduleTrigger(points, unit)
    before = fakes.run(first, fakes.FakeTrainer(), stop_at)
    resumed = ManualScheduleTrigger(points, unit)
    resumed.serialize(fakes.DictDeserializer(save(first)))
    assert resumed.finished == first.finished
    trainer = fakes.FakeTrainer(fakes.FakeUpdater(iteration=stop_at))
    assert before + fakes.run(resumed, trainer, 12 - stop_at) == straight
    assert resumed.finished


def test_missing_finished_is_guessed_at_the_next_call():
    first = ManualScheduleTrigger([2, 5], 'iteration')
    fakes.run(first, fakes.FakeTrainer(), 6)
    stored = save(first)
    assert set(stored) == {'previous_iteration', 'previous_epoch_detail', 'finished'}
    del stored['finished']
    resumed = ManualScheduleTrigger([2, 5], 'iteration')
    with pytest.warns(UserWarning, match='finished'):
        resumed.serialize(fakes.DictDeserializer(stored))
    assert not resumed.finished
    assert fakes.run(resumed, fakes.FakeTrainer(fakes.FakeUpdater(iteration=6)), 1) == []
    assert resumed.finished


@pytest.mark.parametrize('points, unit, error, match', [
    ([], 'iteration', ValueError, 'points'),
    ([1, 'x'], 'iteration', TypeError, 'points'),
    ([1], 'epochs', ValueError, 'unit'),
])
def test_bad_arguments(points, unit, error, match):
    with pytest.raises(error, match=match):
        ManualScheduleTrigger(points, unit)
