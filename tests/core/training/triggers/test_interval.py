"""IntervalTrigger: firing by iterations and (fractional) epochs, and resuming from snapshots."""

import importlib.util
import math
import pathlib
import warnings
from fractions import Fraction

import numpy as np
import pytest

from catena.training.triggers import IntervalTrigger

_spec = importlib.util.spec_from_file_location(
    '_training_fakes', pathlib.Path(__file__).parents[1] / '_fakes.py')
fakes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fakes)

SNAPSHOT = (pathlib.Path(__file__).parents[3] / 'data' / 'chainer-7.8.1'
            / 'trainer_snapshot_iter7.npz')


def expected_firings(period, unit, iterations, dataset_size, batch_size):
    """Iterations at which a multiple of the period is crossed, in exact arithmetic."""
    period = Fraction(str(period))

    def position(iteration):
        if unit == 'iteration':
            return Fraction(iteration)
        return Fraction(iteration * batch_size, dataset_size)

    return [i for i in range(1, iterations + 1)
            if math.floor(position(i - 1) / period) != math.floor(position(i) / period)]


CASES = [
    # (period, unit, dataset_size, batch_size)
    (1, 'iteration', 40, 8),
    (3, 'iteration', 40, 8),
    (1, 'epoch', 40, 8),
    (2, 'epoch', 40, 8),
    (0.2, 'epoch', 40, 8),
    (0.4, 'epoch', 40, 8),
    (0.6, 'epoch', 40, 8),
    (1, 'epoch', 10, 4),  # epoch boundaries inside mini-batches
    (0.5, 'epoch', 10, 3),
    (1.5, 'epoch', 7, 2),
]


@pytest.mark.parametrize('period, unit, dataset_size, batch_size', CASES)
def test_fires_when_a_multiple_of_the_period_is_crossed(period, unit, dataset_size, batch_size):
    trainer = fakes.FakeTrainer(fakes.FakeUpdater(dataset_size, batch_size))
    fired = fakes.run(IntervalTrigger(period, unit), trainer, 30)
    assert fired == expected_firings(period, unit, 30, dataset_size, batch_size)
    assert fired  # every case fires at least once in 30 iterations


def test_concrete_sequences():
    trainer = fakes.FakeTrainer(fakes.FakeUpdater(40, 8))
    assert fakes.run(IntervalTrigger(3, 'iteration'), trainer, 10) == [3, 6, 9]
    trainer = fakes.FakeTrainer(fakes.FakeUpdater(40, 8))
    assert fakes.run(IntervalTrigger(1, 'epoch'), trainer, 16) == [5, 10, 15]
    trainer = fakes.FakeTrainer(fakes.FakeUpdater(40, 8))
    # 0.2-epoch steps: every iteration crosses a 0.2 boundary, even where
    # 1.4 / 0.2 rounds to 6.999999999999999.
    assert fakes.run(IntervalTrigger(0.2, 'epoch'), trainer, 10) == list(range(1, 11))


def test_called_every_other_iteration_fires_on_crossing():
    trainer = fakes.FakeTrainer(fakes.FakeUpdater(40, 8))
    trigger = IntervalTrigger(3, 'iteration')
    fired = []
    for _ in range(12):
        trainer.updater.update()
        if trainer.updater.iteration % 2 == 0 and trigger(trainer):
            fired.append(trainer.updater.iteration)
    assert fired == [4, 6, 10, 12]  # crossing 3, 6, 9, 12


def save(trigger):
    target = {}
    trigger.serialize(fakes.DictSerializer(target))
    return target


@pytest.mark.parametrize('period, unit, dataset_size, batch_size', CASES)
@pytest.mark.parametrize('stop_at', [0, 1, 4, 7, 13])
def test_resume_after_serialize_matches_an_uninterrupted_run(
        period, unit, dataset_size, batch_size, stop_at):
    straight = fakes.run(IntervalTrigger(period, unit),
                         fakes.FakeTrainer(fakes.FakeUpdater(dataset_size, batch_size)), 25)

    first = IntervalTrigger(period, unit)
    updater = fakes.FakeUpdater(dataset_size, batch_size)
    before = fakes.run(first, fakes.FakeTrainer(updater), stop_at)
    stored = save(first)

    resumed = IntervalTrigger(period, unit)
    resumed.serialize(fakes.DictDeserializer(stored))
    updater = fakes.FakeUpdater(dataset_size, batch_size, iteration=stop_at)
    after = fakes.run(resumed, fakes.FakeTrainer(updater), 25 - stop_at)
    assert before + after == straight


def test_serializes_exactly_chainers_keys():
    trigger = IntervalTrigger(1, 'epoch')
    fakes.run(trigger, fakes.FakeTrainer(fakes.FakeUpdater(40, 8)), 7)
    stored = save(trigger)
    assert set(stored) == {'previous_iteration', 'previous_epoch_detail'}
    assert stored['previous_iteration'] == 7
    assert stored['previous_epoch_detail'] == pytest.approx(1.4)


def chainer_stop_trigger_state():
    with np.load(SNAPSHOT, allow_pickle=False) as npz:
        return {key: npz[key] for key in npz.files if key.startswith('stop_trigger/')}


def test_loads_the_stop_trigger_of_a_chainer_snapshot():
    state = chainer_stop_trigger_state()
    assert set(state) == {'stop_trigger/previous_iteration',
                          'stop_trigger/previous_epoch_detail'}
    trigger = IntervalTrigger(1, 'epoch')
    trigger.serialize(fakes.DictDeserializer(state)['stop_trigger'])
    # Chainer's run: dataset of 40, batch 8, resumed after iteration 7 (epoch 1.4).
    updater = fakes.FakeUpdater(40, 8, iteration=7)
    assert fakes.run(trigger, fakes.FakeTrainer(updater), 8) == [10, 15]
    # Without the loaded position, a fresh trigger fires wrongly at iteration 8.
    fresh = IntervalTrigger(1, 'epoch')
    assert fakes.run(fresh, fakes.FakeTrainer(fakes.FakeUpdater(40, 8, iteration=7)), 8) == [
        8, 10, 15]


@pytest.mark.parametrize('unit, expected', [('iteration', [9, 12, 15]), ('epoch', [10, 15])])
def test_missing_keys_warn_and_guess_from_the_updater(unit, expected):
    trigger = IntervalTrigger(3 if unit == 'iteration' else 1, unit)
    with pytest.warns(UserWarning, match='previous_'):
        trigger.serialize(fakes.DictDeserializer({}))
    updater = fakes.FakeUpdater(40, 8, iteration=7)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert fakes.run(trigger, fakes.FakeTrainer(updater), 8) == expected


@pytest.mark.parametrize('period, unit, error, match', [
    (1, 'epochs', ValueError, 'unit'),
    (1, None, ValueError, 'unit'),
    (0, 'epoch', ValueError, 'period'),
    (-1, 'iteration', ValueError, 'period'),
    (1.5, 'iteration', ValueError, 'period'),
    ('1', 'epoch', TypeError, 'period'),
    (True, 'epoch', TypeError, 'period'),
])
def test_bad_arguments(period, unit, error, match):
    with pytest.raises(error, match=match):
        IntervalTrigger(period, unit)
