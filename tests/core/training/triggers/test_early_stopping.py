"""EarlyStoppingTrigger: patience, modes, the maximum length, and resuming."""

import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location(
    "_training_fakes", pathlib.Path(__file__).parents[1] / "_fakes.py")
fakes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fakes)

import pytest  # noqa: E402

from catena.training.triggers import EarlyStoppingTrigger  # noqa: E402


def observe(values, key='main/loss'):
    return lambda iteration: {key: float(values[iteration - 1])}


def stop_iteration(trigger, values, key='main/loss', limit=None):
    fired = fakes.run(trigger, fakes.FakeTrainer(), limit or len(values), observe(values, key))
    return fired[0] if fired else None


def test_stops_after_patience_checks_without_improvement():
    trigger = EarlyStoppingTrigger(check_trigger=(1, 'iteration'), patience=3)
    assert stop_iteration(trigger, [5, 4, 4, 4, 4, 1, 1, 1]) == 5
    trigger = EarlyStoppingTrigger(check_trigger=(1, 'iteration'), patience=3)
    assert stop_iteration(trigger, [5, 4, 4, 4, 4], limit=5) == 5
    assert trigger.best == 4.0
    assert trigger.count == 3


def test_improvement_resets_the_count():
    trigger = EarlyStoppingTrigger(check_trigger=(1, 'iteration'), patience=2)
    assert stop_iteration(trigger, [5, 6, 4, 6, 3, 7, 7, 7]) == 7


def test_checks_the_mean_over_the_check_interval():
    # pair means: 4, 3.5, 3.5, 3.75 -> improvement, improvement, none, none
    trigger = EarlyStoppingTrigger(check_trigger=(2, 'iteration'), patience=2)
    assert stop_iteration(trigger, [5, 3, 3, 4, 4, 3, 4, 3.5]) == 8


@pytest.mark.parametrize('monitor, mode, values, expected', [
    ('main/accuracy', 'auto', [0.5, 0.6, 0.6, 0.6], 4),  # auto: larger is better
    ('main/accuracy', 'auto', [0.5, 0.4, 0.3, 0.2], 3),
    ('main/loss', 'auto', [0.5, 0.6, 0.7, 0.8], 3),  # auto: smaller is better
    ('main/loss', 'max', [0.5, 0.6, 0.7, 0.8], None),
    ('main/accuracy', 'min', [0.5, 0.4, 0.3, 0.2], None),
])
def test_modes(monitor, mode, values, expected):
    trigger = EarlyStoppingTrigger(check_trigger=(1, 'iteration'), monitor=monitor,
                                   patience=2, mode=mode)
    assert stop_iteration(trigger, values, key=monitor) == expected


def test_max_trigger_stops_even_while_improving():
    trigger = EarlyStoppingTrigger(check_trigger=(1, 'iteration'),
                                   max_trigger=(6, 'iteration'))
    assert stop_iteration(trigger, list(range(20, 0, -1))) == 6
    assert trigger.get_training_length() == (6, 'iteration')


def test_default_checks_each_epoch_up_to_100_epochs():
    trigger = EarlyStoppingTrigger()
    assert trigger.get_training_length() == (100, 'epoch')
    assert trigger.patience == 3
    # dataset 40, batch 8: a check every 5 iterations; no improvement after the first.
    assert stop_iteration(trigger, [1.0] * 30) == 20


def test_missing_monitor_warns_and_does_not_stop():
    trigger = EarlyStoppingTrigger(check_trigger=(1, 'iteration'), patience=1)
    with pytest.warns(UserWarning, match='main/loss'):
        assert stop_iteration(trigger, [1, 1, 1], key='main/other') is None


def test_verbose_prints(capsys):
    trigger = EarlyStoppingTrigger(check_trigger=(1, 'iteration'), patience=1, verbose=True)
    assert stop_iteration(trigger, [1, 2]) == 2
    out = capsys.readouterr().out
    assert 'operator is less' in out
    assert 'early stopping' in out.splitlines()[-1]


def test_patients_alias():
    assert EarlyStoppingTrigger(patients=5).patience == 5
    with pytest.raises(TypeError, match='patients'):
        EarlyStoppingTrigger(patience=2, patients=5)


def test_bad_mode():
    with pytest.raises(ValueError, match='mode'):
        EarlyStoppingTrigger(mode='largest')


@pytest.mark.parametrize('stop_at', [0, 2, 3, 5, 7])
def test_resume_matches_an_uninterrupted_run(stop_at):
    # pair means 4.5, 4, 5, 5: stops at iteration 8 (a resume that lost the
    # 3 of iteration 3 would see 5 at iteration 4 and stop at 6)
    values = [5, 4, 3, 5, 4, 6, 7, 3, 9, 9, 9, 9, 9]

    def make():
        return EarlyStoppingTrigger(check_trigger=(2, 'iteration'), patience=2)

    straight = fakes.run(make(), fakes.FakeTrainer(), 13, observe(values))
    assert straight[0] == 8
    first = make()
    before = fakes.run(first, fakes.FakeTrainer(), stop_at, observe(values))
    stored = {}
    first.serialize(fakes.DictSerializer(stored))
    resumed = make()
    resumed.serialize(fakes.DictDeserializer(stored))
    trainer = fakes.FakeTrainer(fakes.FakeUpdater(iteration=stop_at))
    assert before + fakes.run(resumed, trainer, 13 - stop_at, observe(values)) == straight
