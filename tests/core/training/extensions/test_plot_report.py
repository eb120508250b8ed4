"""PlotReport on a real Trainer: a real PNG, Chainer's serialize key, no pyplot."""

import importlib.util
import json
import os
import pathlib
import struct
import subprocess
import sys
import textwrap

_spec = importlib.util.spec_from_file_location(
    "_report_helpers", pathlib.Path(__file__).parent / "_report_helpers.py")
helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(helpers)

import numpy  # noqa: E402
import pytest  # noqa: E402

from catena import serializers  # noqa: E402
from catena.training import extensions  # noqa: E402

matplotlib_image = pytest.importorskip('matplotlib.image')

# matplotlib's first two default line colours, as RGB in [0, 1].
BLUE = numpy.array([0x1f, 0x77, 0xb4]) / 255
ORANGE = numpy.array([0xff, 0x7f, 0x0e]) / 255


def png_size(path):
    """(width, height) from the IHDR chunk of a PNG file."""
    with open(path, 'rb') as stream:
        header = stream.read(24)
    assert header[:8] == b'\x89PNG\r\n\x1a\n' and header[12:16] == b'IHDR'
    return struct.unpack('>II', header[16:24])


def count_colour(pixels, colour, tolerance=0.02):
    return int((numpy.abs(pixels[..., :3] - colour) < tolerance).all(axis=-1).sum())


def _train(tmp_path, plot_report, stop=(3, 'epoch')):
    trainer = helpers.make_trainer(tmp_path, stop=stop)
    log_report = extensions.LogReport()
    trainer.extend(log_report)
    trainer.extend(plot_report)
    trainer.run()
    return trainer, log_report


def test_writes_a_png_with_both_curves(tmp_path):
    plot_report = extensions.PlotReport(['main/loss', 'main/accuracy'], 'epoch',
                                        filename='loss.png')
    _train(tmp_path, plot_report)

    path = tmp_path / 'loss.png'
    width, height = png_size(path)
    pixels = matplotlib_image.imread(path)
    assert pixels.shape[:2] == (height, width)
    assert width > 200 and height > 200
    assert count_colour(pixels, BLUE) > 50
    assert count_colour(pixels, ORANGE) > 50
    assert sorted(os.listdir(tmp_path)) == ['log', 'loss.png']  # no temporary files


def test_points_are_the_interval_means_saved_under_chainers_key(tmp_path):
    plot_report = extensions.PlotReport('main/loss', x_key='epoch', file_name='old.png')
    _, log_report = _train(tmp_path, plot_report)

    target = {}
    serializers.DictionarySerializer(target).save(plot_report)
    assert {'_plot_old.png', '_trigger/previous_iteration', '_summary/_names'} <= set(target)
    data = json.loads(str(target['_plot_old.png']))
    expected = [[entry['epoch'], entry['main/loss']] for entry in log_report.log]
    assert data == {'main/loss': expected}

    restored = extensions.PlotReport('main/loss', x_key='epoch', file_name='old.png')
    serializers.NpzDeserializer(target).load(restored)
    again = {}
    serializers.DictionarySerializer(again).save(restored)
    assert json.loads(str(again['_plot_old.png'])) == data


def _points(plot_report):
    saved = {}
    serializers.DictionarySerializer(saved).save(plot_report)
    return json.loads(str(saved[f'_plot_{plot_report._file_name}']))['main/loss']


def _plot_run(out, stop, snapshot=None):
    plot_report = extensions.PlotReport('main/loss', 'iteration', trigger=(2, 'iteration'))
    trainer = helpers.make_trainer(out, stop=(stop, 'iteration'))
    trainer.extend(plot_report)
    if snapshot is not None:
        serializers.load_npz(snapshot, trainer)
    trainer.run()
    return trainer, plot_report


def test_resume_mid_interval_plots_the_uninterrupted_points(tmp_path):
    _, uninterrupted = _plot_run(tmp_path / 'whole', 8)
    first, _ = _plot_run(tmp_path / 'first', 5)
    snapshot = tmp_path / 'snapshot.npz'
    serializers.save_npz(snapshot, first)
    _, resumed = _plot_run(tmp_path / 'second', 8, snapshot=snapshot)

    want = _points(uninterrupted)
    got = _points(resumed)
    assert [x for x, _ in got] == [x for x, _ in want] == [2, 4, 6, 8]
    numpy.testing.assert_allclose([y for _, y in got], [y for _, y in want], rtol=1e-6)
    assert (tmp_path / 'second' / 'plot.png').exists()


def test_a_chainer_snapshot_with_only_the_points_loads_with_warnings():
    target = {'_plot_plot.png': json.dumps({'main/loss': [[2, 0.5], [4, 0.25]]})}
    restored = extensions.PlotReport('main/loss', 'iteration', trigger=(2, 'iteration'))
    with pytest.warns(UserWarning):
        serializers.NpzDeserializer(target).load(restored)
    assert _points(restored) == [[2, 0.5], [4, 0.25]]


def test_an_observed_x_key_is_averaged_like_the_y_keys(tmp_path):
    plot_report = extensions.PlotReport('main/loss', x_key='main/accuracy')
    _, log_report = _train(tmp_path, plot_report)
    expected = [[entry['main/accuracy'], entry['main/loss']] for entry in log_report.log]
    assert _points(plot_report) == expected


def test_nothing_is_written_while_there_is_no_point(tmp_path):
    plot_report = extensions.PlotReport(['no/such/key'])
    _train(tmp_path, plot_report, stop=(1, 'epoch'))
    assert not (tmp_path / 'plot.png').exists()


def test_available_and_bad_arguments():
    assert extensions.PlotReport.available() is True
    with pytest.raises(TypeError, match='filename or its old name file_name'):
        extensions.PlotReport('main/loss', filename='a.png', file_name='b.png')
    with pytest.raises(TypeError, match='y_keys must be'):
        extensions.PlotReport(['main/loss', 3])
    with pytest.raises(TypeError, match='postprocess must be callable'):
        extensions.PlotReport('main/loss', postprocess='no')


def test_never_imports_pyplot_nor_changes_the_chosen_backend(tmp_path):
    script = textwrap.dedent(f"""
        import sys
        import matplotlib
        matplotlib.use('pdf')
        sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})
        import _report_helpers as helpers
        from catena.training import extensions
        trainer = helpers.make_trainer({str(tmp_path)!r}, stop=(1, 'epoch'))
        trainer.extend(extensions.PlotReport('main/loss'))
        trainer.run()
        assert 'matplotlib.pyplot' not in sys.modules, 'pyplot was imported'
        assert matplotlib.get_backend() == 'pdf', matplotlib.get_backend()
    """)
    result = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert png_size(tmp_path / 'plot.png')[0] > 0
