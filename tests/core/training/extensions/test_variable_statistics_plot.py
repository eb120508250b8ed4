"""VariableStatisticsPlot on a real Trainer, with its Reservoir and Statistician."""

import importlib.util
import os
import pathlib
import struct

_spec = importlib.util.spec_from_file_location(
    "_report_helpers", pathlib.Path(__file__).parent / "_report_helpers.py")
helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(helpers)

import numpy  # noqa: E402
import pytest  # noqa: E402

import catena  # noqa: E402
from catena import training  # noqa: E402
from catena.training import extensions  # noqa: E402
from catena.training.extensions import variable_statistics_plot  # noqa: E402

matplotlib = pytest.importorskip('matplotlib')
matplotlib_image = pytest.importorskip('matplotlib.image')

BLUE = numpy.array([0x1f, 0x77, 0xb4]) / 255
SIGMAS = (0, 0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87, 100)


def png_size(path):
    with open(path, 'rb') as stream:
        header = stream.read(24)
    assert header[:8] == b'\x89PNG\r\n\x1a\n' and header[12:16] == b'IHDR'
    return struct.unpack('>II', header[16:24])


def _model_of(trainer):
    return trainer.updater.get_optimizer('main').target


def _record_params(trainer):
    """Records every iteration's parameter values and gradients (after the update)."""
    records = {}
    model = _model_of(trainer)

    @training.make_extension(priority=training.PRIORITY_WRITER)
    def record(trainer):
        params = list(model.params())
        records[trainer.updater.iteration] = (
            numpy.concatenate([p.array.ravel() for p in params]),
            numpy.concatenate([p.grad.ravel() for p in params]))

    trainer.extend(record)
    return records


def test_writes_a_png_of_the_requested_size(tmp_path):
    trainer = helpers.make_trainer(tmp_path, stop=(2, 'epoch'))
    plot = extensions.VariableStatisticsPlot(_model_of(trainer), figsize=(4, 3))
    trainer.extend(plot)
    trainer.run()

    path = tmp_path / 'statistics.png'
    dpi = matplotlib.rcParams['figure.dpi']
    assert png_size(path) == (round(4 * dpi), round(3 * dpi))
    pixels = matplotlib_image.imread(path)
    blue = (numpy.abs(pixels[..., :3] - BLUE) < 0.02).all(axis=-1).sum()
    assert blue > 50
    assert os.listdir(tmp_path) == ['statistics.png']


def test_sampled_statistics_are_those_of_all_parameters_together(tmp_path):
    trainer = helpers.make_trainer(tmp_path, stop=(6, 'iteration'))
    records = _record_params(trainer)
    plot = extensions.VariableStatisticsPlot(_model_of(trainer), trigger=(3, 'iteration'),
                                             file_name='stats.png')
    trainer.extend(plot)
    trainer.run()

    idxs, data = plot._samples.get_data()
    assert idxs.tolist() == [1, 2, 3, 4, 5, 6]
    assert data.shape == (6, 2, 2 + len(SIGMAS))
    for row, iteration in enumerate(idxs):
        for kind, values in enumerate(records[int(iteration)]):
            expected = [values.mean(), values.std(), *numpy.percentile(values, SIGMAS)]
            numpy.testing.assert_allclose(data[row, kind], expected, rtol=1e-5, atol=1e-6)
    assert (tmp_path / 'stats.png').exists()


@pytest.mark.parametrize('kwargs', [
    {'plot_std': False},
    {'plot_mean': False, 'percentile_sigmas': (10, 50, 90, 99)},
    {'plot_mean': False, 'plot_std': False, 'percentile_sigmas': 50},
    {'report_grad': False, 'percentile_sigmas': ()},
])
def test_other_layouts_are_drawn(tmp_path, kwargs):
    trainer = helpers.make_trainer(tmp_path, stop=(1, 'epoch'))
    link = _model_of(trainer).predictor
    trainer.extend(extensions.VariableStatisticsPlot([link.W, link.b], marker='o', grid=False,
                                                     **kwargs))
    trainer.run()
    assert png_size(tmp_path / 'statistics.png')[0] > 0


def test_uninitialized_parameters_and_missing_gradients_are_skipped():
    variable = catena.Variable(numpy.arange(4, dtype=numpy.float32))
    empty = catena.Parameter()
    plot = extensions.VariableStatisticsPlot([variable, empty], percentile_sigmas=(0, 100),
                                             trigger=(100, 'iteration'))

    class Trainer:
        class updater:
            iteration = 7

        out = '.'

    plot(Trainer)
    idxs, data = plot._samples.get_data()
    assert idxs.tolist() == [7]
    numpy.testing.assert_allclose(data[0, 0], [1.5, numpy.std([0, 1, 2, 3]), 0, 3])
    numpy.testing.assert_array_equal(data[0, 1], 0)  # no gradient yet


def test_reservoir_keeps_a_sorted_uniform_sample():
    reservoir = variable_statistics_plot.Reservoir(5, (2,))
    for i in range(3):
        reservoir.add(numpy.full(2, i), idx=10 * i)
    idxs, data = reservoir.get_data()
    assert idxs.tolist() == [0, 10, 20]
    numpy.testing.assert_array_equal(data[:, 0], [0, 1, 2])

    for i in range(3, 200):
        reservoir.add(numpy.full(2, i), idx=10 * i)
    idxs, data = reservoir.get_data()
    assert len(idxs) == 5 and reservoir.counter == 200
    assert idxs.tolist() == sorted(idxs.tolist())
    numpy.testing.assert_array_equal(data[:, 0] * 10, idxs)  # items stay with their labels
    with pytest.raises(ValueError, match='size must be a positive int'):
        variable_statistics_plot.Reservoir(0, (1,))


def test_statistician_matches_numpy():
    x = numpy.random.default_rng(1).standard_normal((50, 3))
    statistician = variable_statistics_plot.Statistician(True, True, (5, 50, 95))
    stats = statistician(x, axis=0)
    numpy.testing.assert_allclose(stats['mean'], x.mean(axis=0))
    numpy.testing.assert_allclose(stats['std'], x.std(axis=0))
    numpy.testing.assert_allclose(stats['percentile'], numpy.percentile(x, (5, 50, 95), axis=0))
    everything = statistician(x, axis=None)
    numpy.testing.assert_allclose(everything['mean'], x.mean())


def test_bad_arguments_are_reported():
    variable = catena.Variable(numpy.zeros(3, dtype=numpy.float32))
    with pytest.raises(ValueError, match='no variable'):
        extensions.VariableStatisticsPlot([])
    with pytest.raises(TypeError, match='targets must be a Variable, a Link'):
        extensions.VariableStatisticsPlot(numpy.zeros(3))
    with pytest.raises(ValueError, match='nothing to plot'):
        extensions.VariableStatisticsPlot(variable, plot_mean=False, plot_std=False,
                                          percentile_sigmas=())
    with pytest.raises(ValueError, match='report_data and report_grad'):
        extensions.VariableStatisticsPlot(variable, report_data=False, report_grad=False)
    with pytest.raises(ValueError, match=r'\[0, 100\]'):
        extensions.VariableStatisticsPlot(variable, percentile_sigmas=(50, 101))
    with pytest.raises(TypeError, match='filename or its old name'):
        extensions.VariableStatisticsPlot(variable, filename='a.png', file_name='b.png')
    assert extensions.VariableStatisticsPlot.available() is True
