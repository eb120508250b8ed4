"""OnceTrigger: fires once, and once more after a resume when asked to."""

import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location(
    "_training_fakes", pathlib.Path(__file__).parents[1] / "_fakes.py")
fakes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fakes)

import pytest  # noqa: E402

from catena.training.triggers import OnceTrigger  # noqa: E402


@pytest.mark.parametrize('call_on_resume', [False, True])
def test_fires_at_the_first_call_only(call_on_resume):
    trigger = OnceTrigger(call_on_resume)
    assert not trigger.finished
    assert fakes.run(trigger, fakes.FakeTrainer(), 5) == [1]
    assert trigger.finished


@pytest.mark.parametrize('call_on_resume, expected', [(False, []), (True, [4])])
def test_after_a_resume(call_on_resume, expected):
    first = OnceTrigger(call_on_resume)
    fakes.run(first, fakes.FakeTrainer(), 3)
    stored = {}
    first.serialize(fakes.DictSerializer(stored))
    assert set(stored) == {'_flag_first'}
    resumed = OnceTrigger(call_on_resume)
    resumed.serialize(fakes.DictDeserializer(stored))
    assert resumed.finished is not call_on_resume
    trainer = fakes.FakeTrainer(fakes.FakeUpdater(iteration=3))
    assert fakes.run(resumed, trainer, 4) == expected
    assert resumed.finished


def test_resume_before_the_first_call_still_fires_once():
    first = OnceTrigger()
    stored = {}
    first.serialize(fakes.DictSerializer(stored))
    resumed = OnceTrigger()
    resumed.serialize(fakes.DictDeserializer(stored))
    assert fakes.run(resumed, fakes.FakeTrainer(), 3) == [1]


def test_snapshot_without_the_flag_warns_and_counts_as_after_the_first_call():
    trigger = OnceTrigger()
    with pytest.warns(UserWarning, match='_flag_first'):
        trigger.serialize(fakes.DictDeserializer({}))
    assert trigger.finished
    assert fakes.run(trigger, fakes.FakeTrainer(), 2) == []
