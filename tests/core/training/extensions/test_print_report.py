"""PrintReport on a real Trainer: the exact table, terminals, an owned LogReport."""

import importlib.util
import io
import pathlib

_spec = importlib.util.spec_from_file_location(
    "_report_helpers", pathlib.Path(__file__).parent / "_report_helpers.py")
helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(helpers)

import pytest  # noqa: E402

from catena import serializers  # noqa: E402
from catena.training import extensions  # noqa: E402

ENTRIES = ['epoch', 'iteration', 'value', 'missing/key']
# Columns are max(10, len(name)) wide plus two spaces; 'value' is 0.125 * iteration,
# so its epoch means are 2.5/8, 6.5/8 and 10.5/8.
EXPECTED = (
    'epoch       iteration   value       missing/key\n'
    '1           4           0.3125                   \n'
    '2           8           0.8125                   \n'
    '3           12          1.3125                   \n'
)


def _run(tmp_path, out, log_report='LogReport', register_log_report=True):
    trainer = helpers.make_trainer(tmp_path)
    helpers.add_reported_value(trainer)
    if register_log_report:
        trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(ENTRIES, log_report=log_report, out=out))
    trainer.run()
    return trainer


def test_prints_the_header_and_one_row_per_log_entry(tmp_path):
    out = io.StringIO()
    _run(tmp_path, out)
    assert out.getvalue() == EXPECTED


def test_on_a_terminal_each_row_first_erases_what_is_below(tmp_path):
    out = helpers.FakeTerminal()
    _run(tmp_path, out)
    assert out.getvalue() == EXPECTED.replace('\n1 ', '\n\033[J1 ').replace(
        '\n2 ', '\n\033[J2 ').replace('\n3 ', '\n\033[J3 ')


def test_long_names_widen_their_column_and_non_numbers_print_as_text(tmp_path):
    trainer = helpers.make_trainer(tmp_path, stop=(1, 'epoch'))

    def postprocess(entry):
        entry['note'] = 'ok'

    trainer.extend(extensions.LogReport(postprocess=postprocess))
    out = io.StringIO()
    trainer.extend(extensions.PrintReport(['a_rather_long_entry_name', 'note'], out=out))
    trainer.run()
    assert out.getvalue() == ('a_rather_long_entry_name  note      \n'
                              + ' ' * 26 + 'ok' + ' ' * 10 + '\n')


def test_an_owned_log_report_is_called_and_saved_under_log_report(tmp_path):
    out = io.StringIO()
    owned = extensions.LogReport()
    trainer = _run(tmp_path, out, log_report=owned, register_log_report=False)
    assert out.getvalue() == EXPECTED
    assert len(owned.log) == 3

    target = {}
    serializers.DictionarySerializer(target).save(trainer)
    assert 'extensions/PrintReport/_log_report/_log' in target
    assert 'extensions/PrintReport/_log_report/_trigger/previous_iteration' in target


def test_a_missing_log_report_and_bad_arguments_are_reported(tmp_path):
    trainer = helpers.make_trainer(tmp_path, stop=(1, 'iteration'))
    trainer.extend(extensions.PrintReport(['epoch'], out=io.StringIO()))
    with pytest.raises(ValueError, match="no extension named 'LogReport'"):
        trainer.run(show_loop_exception_msg=False)
    with pytest.raises(TypeError, match='entries must be a list of keys'):
        extensions.PrintReport('epoch')
    with pytest.raises(TypeError, match='entries must be strs'):
        extensions.PrintReport(['epoch', 3])
    with pytest.raises(TypeError, match='log_report must be'):
        extensions.PrintReport(['epoch'], log_report=3)
