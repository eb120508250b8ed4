"""LogReport on a real Trainer: entries, the JSON file, atomic writes, resuming."""

import importlib.util
import json
import os
import pathlib

_spec = importlib.util.spec_from_file_location(
    "_report_helpers", pathlib.Path(__file__).parent / "_report_helpers.py")
helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(helpers)

import numpy  # noqa: E402
import pytest  # noqa: E402

from catena import serializers  # noqa: E402
from catena.training import extensions  # noqa: E402

ITERATIONS_PER_EPOCH = helpers.N_EXAMPLES // helpers.BATCH_SIZE


def _expected_means(records, key, group):
    """Means of ``key`` over consecutive groups of ``group`` iterations."""
    values = numpy.array([values[key] for _, _, values in records], dtype=numpy.float64)
    return values.reshape(-1, group).mean(axis=1)


def test_entries_hold_the_interval_means_epoch_iteration_and_time(tmp_path):
    trainer = helpers.make_trainer(tmp_path)
    log_report = extensions.LogReport()
    trainer.extend(log_report)
    records = helpers.add_recorder(trainer)
    trainer.run()

    log = log_report.log
    assert [entry['epoch'] for entry in log] == [1, 2, 3]
    assert [entry['iteration'] for entry in log] == [4, 8, 12]
    for entry in log:
        assert set(entry) == {'main/loss', 'main/accuracy', 'epoch', 'iteration', 'elapsed_time'}
    for key in ('main/loss', 'main/accuracy'):
        numpy.testing.assert_allclose([entry[key] for entry in log],
                                      _expected_means(records, key, ITERATIONS_PER_EPOCH),
                                      rtol=1e-6)
    times = [entry['elapsed_time'] for entry in log]
    assert times[0] > 0 and times == sorted(times)
    assert all(type(entry['main/loss']) is float for entry in log)


def test_file_is_a_json_list_with_indent_4(tmp_path):
    trainer = helpers.make_trainer(tmp_path)
    log_report = extensions.LogReport()
    trainer.extend(log_report)
    trainer.run()

    text = (tmp_path / 'log').read_text()
    assert json.loads(text) == log_report.log
    assert text == json.dumps(log_report.log, indent=4)
    assert text.startswith('[\n    {\n        "main/loss": ')
    assert os.listdir(tmp_path) == ['log']  # no temporary files left behind


def test_keys_trigger_postprocess_and_formatted_filename(tmp_path):
    trainer = helpers.make_trainer(tmp_path, stop=(6, 'iteration'))
    records = helpers.add_recorder(trainer)

    def postprocess(entry):
        entry['twice_loss'] = 2 * entry['main/loss']

    log_report = extensions.LogReport(keys=['main/loss'], trigger=(2, 'iteration'),
                                      postprocess=postprocess, filename='log_{iteration}')
    trainer.extend(log_report)
    trainer.run()

    log = log_report.log
    assert [entry['iteration'] for entry in log] == [2, 4, 6]
    assert all('main/accuracy' not in entry for entry in log)
    expected = _expected_means(records, 'main/loss', 2)
    numpy.testing.assert_allclose([entry['main/loss'] for entry in log], expected, rtol=1e-6)
    numpy.testing.assert_allclose([entry['twice_loss'] for entry in log], 2 * expected,
                                  rtol=1e-6)
    assert sorted(os.listdir(tmp_path)) == ['log_2', 'log_4', 'log_6']
    assert len(json.loads((tmp_path / 'log_4').read_text())) == 2


def test_filename_none_writes_nothing_and_log_name_is_an_alias(tmp_path):
    trainer = helpers.make_trainer(tmp_path, stop=(1, 'epoch'))
    in_memory = extensions.LogReport(filename=None)
    old_name = extensions.LogReport(log_name='old_log')
    trainer.extend(in_memory)
    trainer.extend(old_name, name='old')
    trainer.run()
    assert len(in_memory.log) == 1
    assert os.listdir(tmp_path) == ['old_log']
    with pytest.raises(TypeError, match='filename or its old name log_name'):
        extensions.LogReport(filename='a', log_name='b')
    with pytest.raises(TypeError, match='keys must be a list'):
        extensions.LogReport(keys='main/loss')
    with pytest.raises(TypeError, match='filename must be a str'):
        extensions.LogReport(filename=3)
    with pytest.raises(ValueError, match='trigger'):
        extensions.LogReport(trigger=(1, 'week'))


def test_a_value_json_cannot_hold_leaves_the_previous_log_intact(tmp_path):
    trainer = helpers.make_trainer(tmp_path)

    def postprocess(entry):
        if entry['epoch'] == 2:
            entry['bad'] = object()

    log_report = extensions.LogReport(postprocess=postprocess)
    trainer.extend(log_report)
    with pytest.raises(TypeError, match='not JSON serializable'):
        trainer.run(show_loop_exception_msg=False)

    assert [entry['epoch'] for entry in log_report.log] == [1]
    assert json.loads((tmp_path / 'log').read_text()) == log_report.log
    assert os.listdir(tmp_path) == ['log']


def test_a_failed_replace_leaves_the_previous_file_and_no_temporary(tmp_path, monkeypatch):
    trainer = helpers.make_trainer(tmp_path)

    def failing_replace(source, destination):
        raise OSError('disk full')

    def postprocess(entry):
        if entry['epoch'] == 2:
            monkeypatch.setattr(os, 'replace', failing_replace)

    log_report = extensions.LogReport(postprocess=postprocess)
    trainer.extend(log_report)
    with pytest.raises(OSError, match='disk full'):
        trainer.run(show_loop_exception_msg=False)
    monkeypatch.undo()

    saved = json.loads((tmp_path / 'log').read_text())
    assert [entry['epoch'] for entry in saved] == [1]
    assert log_report.log == saved  # the failed entry was not kept either
    assert os.listdir(tmp_path) == ['log']


def _run_log(out, stop, snapshot=None):
    trainer = helpers.make_trainer(out, stop=(stop, 'iteration'))
    log_report = extensions.LogReport()
    trainer.extend(log_report)
    if snapshot is not None:
        serializers.load_npz(snapshot, trainer)
    trainer.run()
    return trainer, log_report


def test_resume_mid_epoch_gives_the_uninterrupted_log(tmp_path):
    _, uninterrupted = _run_log(tmp_path / 'whole', 12)

    first, _ = _run_log(tmp_path / 'first', 6)  # stops in the middle of epoch 2
    snapshot = tmp_path / 'snapshot.npz'
    serializers.save_npz(snapshot, first)
    with numpy.load(snapshot) as stored:
        keys = set(stored.files)
        assert json.loads(str(stored['extensions/LogReport/_log']))[0]['iteration'] == 4
    assert {'extensions/LogReport/_log', 'extensions/LogReport/_trigger/previous_iteration',
            'extensions/LogReport/_trigger/previous_epoch_detail',
            'extensions/LogReport/_summary/_names'} <= keys
    assert any(key.startswith('extensions/LogReport/_summary/_summaries/') for key in keys)

    _, resumed = _run_log(tmp_path / 'second', 12, snapshot=snapshot)

    assert len(resumed.log) == len(uninterrupted.log) == 3
    for got, want in zip(resumed.log, uninterrupted.log):
        assert set(got) == set(want)
        for key in ('epoch', 'iteration'):
            assert got[key] == want[key]
        for key in ('main/loss', 'main/accuracy'):
            assert got[key] == pytest.approx(want[key], rel=1e-6)
    assert json.loads((tmp_path / 'second' / 'log').read_text()) == resumed.log
