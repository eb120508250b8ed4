"""ProgressBar on a real Trainer: drawn on a terminal, silent elsewhere."""

import importlib.util
import io
import pathlib
import re

_spec = importlib.util.spec_from_file_location(
    "_report_helpers", pathlib.Path(__file__).parent / "_report_helpers.py")
helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(helpers)

import pytest  # noqa: E402

from catena.training import extensions  # noqa: E402

ERASE = '\033[J'
UP4 = '\033[4A'
SPEED_LINE = re.compile(r'^ *(\S+) iters/sec\. Estimated time to finish: (\S+)\.$')


def _frames(text):
    """The drawings: each starts with an erase and ends with moving four lines up."""
    assert text.endswith(ERASE)  # finalize erased the last drawing
    frames = text[:-len(ERASE)].split(UP4)
    assert frames[-1] == ''
    frames = frames[:-1]
    for frame in frames:
        assert frame.startswith(ERASE)
    return [frame[len(ERASE):].split('\n')[:-1] for frame in frames]


def test_draws_the_total_and_epoch_bars_every_interval_on_a_terminal(tmp_path):
    trainer = helpers.make_trainer(tmp_path, stop=(2, 'epoch'))  # 8 iterations
    out = helpers.FakeTerminal()
    trainer.extend(extensions.ProgressBar(update_interval=2, out=out))
    trainer.run()

    frames = _frames(out.getvalue())
    assert len(frames) == 4  # iterations 2, 4, 6 and 8
    first, last = frames[0], frames[-1]
    assert first[0] == '     total [' + '#' * 12 + '.' * 38 + '] 25.00%'
    assert first[1] == 'this epoch [' + '#' * 25 + '.' * 25 + '] 50.00%'
    assert first[2] == '         2 iter, 0 epoch / 2 epochs'
    speed = SPEED_LINE.match(first[3])
    assert speed and 0 < float(speed.group(1)) < float('inf')  # measured from the start
    assert frames[1][0] == '     total [' + '#' * 25 + '.' * 25 + '] 50.00%'
    assert frames[1][2] == '         4 iter, 1 epoch / 2 epochs'
    assert last[0] == '     total [' + '#' * 50 + '] 100.00%'
    assert last[1] == 'this epoch [' + '.' * 50 + ']  0.00%'
    assert last[2] == '         8 iter, 2 epoch / 2 epochs'
    match = SPEED_LINE.match(last[3])
    assert match and match.group(2) == '0:00:00'  # nothing is left to do
    assert float(match.group(1)) > 0


def test_writes_nothing_when_the_stream_is_not_a_terminal(tmp_path):
    trainer = helpers.make_trainer(tmp_path, stop=(2, 'epoch'))
    out = io.StringIO()
    trainer.extend(extensions.ProgressBar(update_interval=1, out=out))
    trainer.run()
    assert out.getvalue() == ''


def test_training_length_in_iterations_and_a_shorter_bar(tmp_path):
    trainer = helpers.make_trainer(tmp_path, stop=(4, 'iteration'))
    out = helpers.FakeTerminal()
    trainer.extend(extensions.ProgressBar(training_length=(8, 'iteration'), update_interval=4,
                                          bar_length=10, out=out))
    trainer.run()
    (frame,) = _frames(out.getvalue())
    assert frame[0] == '     total [#####.....] 50.00%'
    assert frame[1] == 'this epoch [..........]  0.00%'
    assert frame[2] == '         4 iter, 1 epoch / 8 iterations'


def test_a_stop_trigger_without_a_length_needs_training_length(tmp_path):
    trainer = helpers.make_trainer(tmp_path, stop=(2, 'iteration'))
    trainer.stop_trigger = lambda trainer: trainer.updater.iteration >= 2
    trainer.extend(extensions.ProgressBar(update_interval=1, out=helpers.FakeTerminal()))
    with pytest.raises(TypeError, match='pass training_length'):
        trainer.run(show_loop_exception_msg=False)


@pytest.mark.parametrize('kwargs, message', [
    ({'training_length': (10, 'week')}, "unit must be 'epoch' or 'iteration'"),
    ({'training_length': 10}, 'training_length must be a'),
    ({'training_length': (0, 'epoch')}, 'must be positive'),
    ({'update_interval': 0}, 'update_interval must be a positive int'),
    ({'bar_length': -1}, 'bar_length must be a positive int'),
])
def test_bad_arguments_are_reported(kwargs, message):
    with pytest.raises(ValueError, match=message):
        extensions.ProgressBar(**kwargs)
