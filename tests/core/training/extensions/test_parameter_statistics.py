"""ParameterStatistics: Chainer's keys and default statistics, checked against NumPy."""

from __future__ import annotations

import numpy
import pytest

import catena.links as L
from catena import datasets, iterators, optimizers, serializers, training
from catena.training import extensions

PERCENTILES = (0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87)


def _trainer(tmp_path, stop=(4, 'iteration')):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((16, 5)).astype(numpy.float32)
    t = (x[:, 0] > 0).astype(numpy.int32)
    model = L.Classifier(L.Linear(5, 3))
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), 4, shuffle=False)
    updater = training.StandardUpdater(iterator, optimizer)
    return training.Trainer(updater, stop, out=str(tmp_path / 'out')), model


def _numpy_statistics(array):
    flat = array.ravel().astype(numpy.float64)
    stats = {'mean': flat.mean(), 'std': flat.std(), 'min': flat.min(), 'max': flat.max(),
             'zeros': float(numpy.count_nonzero(flat == 0))}
    for index, value in enumerate(numpy.percentile(flat, PERCENTILES)):
        stats[f'percentile/{index}'] = value
    return stats


def _run(tmp_path, make_extension, stop=(4, 'iteration')):
    """Runs with the extension; returns the model, the arrays after each update, the reports."""
    trainer, model = _trainer(tmp_path, stop)
    arrays, reports = [], []

    def record(tr):  # runs before the extension: a higher priority
        arrays.append({name: (p.array.copy(), p.grad.copy())
                       for name, p in model.predictor.namedparams()})

    trainer.extend(record, name='record', priority=training.PRIORITY_WRITER + 100)
    trainer.extend(make_extension(model))
    trainer.extend(lambda tr: reports.append((tr.updater.iteration, dict(tr.observation))),
                   name='look')
    trainer.run()
    return model, arrays, reports


def test_reports_the_interval_means_of_the_default_statistics(tmp_path):
    model, arrays, reports = _run(
        tmp_path, lambda m: extensions.ParameterStatistics(m.predictor, trigger=(2, 'iteration')))
    keys = set()
    for iteration, observation in reports:
        found = {k for k in observation if '/data/' in k or '/grad/' in k}
        if iteration % 2:
            assert found == set()
            continue
        keys = found
        for param in ('W', 'b'):
            for attr, which in (('data', 0), ('grad', 1)):
                per_iteration = [_numpy_statistics(arrays[i][f'/{param}'][which])
                                 for i in (iteration - 2, iteration - 1)]
                for stat in per_iteration[0]:
                    expected = numpy.mean([s[stat] for s in per_iteration])
                    got = observation[f'predictor/{param}/{attr}/{stat}']
                    numpy.testing.assert_allclose(float(got), expected, rtol=1e-5, atol=1e-7,
                                                  err_msg=f'{param}/{attr}/{stat}')
    names = ['mean', 'std', 'min', 'max', 'zeros'] + [f'percentile/{i}' for i in range(7)]
    assert keys == {f'predictor/{p}/{a}/{n}' for p in ('W', 'b') for a in ('data', 'grad')
                    for n in names}


def test_root_link_name_prefix_and_choices(tmp_path):
    _, _, reports = _run(tmp_path, lambda m: extensions.ParameterStatistics(
        m, statistics={'absmax': lambda x: abs(x).max()}, report_grads=False, prefix='stats',
        trigger=(1, 'iteration')))
    observation = reports[-1][1]
    # A root link has no name: Chainer writes 'None'.
    assert sorted(k for k in observation if k.startswith('stats/')) == [
        'stats/None/predictor/W/data/absmax', 'stats/None/predictor/b/data/absmax']


def test_register_statistics_and_no_statistics(tmp_path):
    extension = None

    def make(model):
        nonlocal extension
        extension = extensions.ParameterStatistics([model.predictor], statistics=None,
                                                   report_params=False, trigger=(1, 'iteration'))
        extension.register_statistics('norm', lambda x: numpy.sqrt((x * x).sum()))
        return extension

    _, arrays, reports = _run(tmp_path, make, stop=(1, 'iteration'))
    observation = reports[0][1]
    assert sorted(k for k in observation if 'norm' in k) == [
        'predictor/W/grad/norm', 'predictor/b/grad/norm']
    numpy.testing.assert_allclose(float(observation['predictor/W/grad/norm']),
                                  numpy.linalg.norm(arrays[0]['/W'][1]), rtol=1e-6)
    with pytest.raises(TypeError, match="'bad' must be callable"):
        extension.register_statistics('bad', 3)


def test_skip_nan_params_reports_a_single_nan(tmp_path):
    trainer, model = _trainer(tmp_path, (1, 'iteration'))
    trainer.extend(lambda tr: model.predictor.b.array.__setitem__(0, numpy.nan),
                   name='poison', priority=training.PRIORITY_WRITER + 100)
    trainer.extend(extensions.ParameterStatistics(model.predictor, report_grads=False,
                                                  trigger=(1, 'iteration'),
                                                  skip_nan_params=True))
    seen = []
    trainer.extend(lambda tr: seen.append(dict(tr.observation)), name='look')
    trainer.run()
    observation = seen[0]
    assert numpy.isnan(observation['predictor/b/data/mean'])
    assert numpy.isnan(observation['predictor/b/data/percentile'])
    assert 'predictor/b/data/percentile/0' not in observation
    assert numpy.isfinite(observation['predictor/W/data/percentile/6'])


def test_defaults_and_bad_arguments():
    assert extensions.ParameterStatistics.priority == training.PRIORITY_WRITER
    assert extensions.ParameterStatistics.default_name == 'parameter_statistics'
    assert sorted(extensions.ParameterStatistics.default_statistics) == [
        'max', 'mean', 'min', 'percentile', 'std', 'zeros']
    with pytest.raises(TypeError, match='item 1 is a int'):
        extensions.ParameterStatistics([L.Linear(2, 2), 3])
    with pytest.raises(ValueError, match="None or 'default'"):
        extensions.ParameterStatistics(L.Linear(2, 2), statistics='all')


def test_save_and_load_keep_the_interval(tmp_path):
    def make(model):
        return extensions.ParameterStatistics(model.predictor, statistics={'sum': numpy.sum},
                                              report_grads=False, trigger=(3, 'iteration'))

    trainer, model = _trainer(tmp_path, (1, 'iteration'))
    extension = make(model)
    trainer.extend(extension)
    trainer.run()
    path = tmp_path / 'stats.npz'
    serializers.save_npz(str(path), extension)
    with numpy.load(path) as stored:
        assert 'trigger/previous_iteration' in stored.files
        assert '_summary/_names' in stored.files
    fresh = make(model)
    serializers.load_npz(str(path), fresh)
    assert fresh._summary.compute_mean().keys() == extension._summary.compute_mean().keys()
    for key, value in extension._summary.compute_mean().items():
        assert float(fresh._summary.compute_mean()[key]) == float(value)
