"""MicroAverage: the ratio of sums over an interval, skipped iterations, save/load."""

from __future__ import annotations

import numpy
import pytest

import catena.links as L
from catena import datasets, iterators, optimizers, serializers, training
from catena.training import extensions


def _trainer(tmp_path, stop):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((20, 3)).astype(numpy.float32)
    t = (x[:, 0] > 0).astype(numpy.int32)
    model = L.Classifier(L.Linear(3, 2))
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), 4, shuffle=False)
    updater = training.StandardUpdater(iterator, optimizer)
    return training.Trainer(updater, stop, out=str(tmp_path / 'out'))


def _correct(i):
    return numpy.int64(i % 4)


def _total(i):
    return 2 * i + 1


def _write_counts(trainer):
    """Reports made-up counts, except at iteration 5."""
    i = trainer.updater.iteration
    if i != 5:
        trainer.observation['main/correct'] = _correct(i)
        trainer.observation['main/total'] = _total(i)


def _extend(trainer, average, seen):
    trainer.extend(_write_counts, name='counts', priority=training.PRIORITY_WRITER)
    trainer.extend(average)
    trainer.extend(lambda tr: seen.append((tr.updater.iteration, tr.observation.get('acc'))),
                   name='look', priority=training.PRIORITY_READER)


def _expected(iterations):
    kept = [i for i in iterations if i != 5]
    return sum(int(_correct(i)) for i in kept) / sum(_total(i) for i in kept)


def test_reports_the_ratio_of_the_sums_when_its_trigger_fires(tmp_path):
    trainer = _trainer(tmp_path, (9, 'iteration'))
    seen = []
    average = extensions.MicroAverage('main/correct', 'main/total', 'acc',
                                      trigger=(3, 'iteration'))
    assert average.priority == training.PRIORITY_EDITOR
    _extend(trainer, average, seen)
    trainer.run()
    reported = {i: v for i, v in seen if v is not None}
    assert sorted(reported) == [3, 6, 9]
    assert reported[3] == pytest.approx(_expected([1, 2, 3]))
    assert reported[6] == pytest.approx(_expected([4, 5, 6]))
    assert reported[9] == pytest.approx(_expected([7, 8, 9]))
    # Not the mean of the per-iteration ratios (the macro-average).
    macro = numpy.mean([int(_correct(i)) / _total(i) for i in (7, 8, 9)])
    assert abs(reported[9] - macro) > 1e-3


def test_an_iteration_without_the_keys_does_not_fire(tmp_path):
    trainer = _trainer(tmp_path, (6, 'iteration'))
    seen = []
    # The trigger fires at iteration 5, which reports nothing: the ratio waits
    # for the next iteration that has the keys, as in Chainer.
    average = extensions.MicroAverage('main/correct', 'main/total', 'acc',
                                      trigger=(5, 'iteration'))
    _extend(trainer, average, seen)
    trainer.run()
    reported = {i: v for i, v in seen if v is not None}
    assert list(reported) == [6]
    assert reported[6] == pytest.approx(_expected(range(1, 7)))


def test_a_zero_denominator_gives_nan(tmp_path):
    trainer = _trainer(tmp_path, (1, 'iteration'))
    seen = []
    trainer.extend(lambda tr: tr.observation.update({'n': 0, 'd': 0}), name='zeros',
                   priority=training.PRIORITY_WRITER)
    trainer.extend(extensions.MicroAverage('n', 'd', 'r', trigger=(1, 'iteration')))
    trainer.extend(lambda tr: seen.append(tr.observation['r']), name='look')
    trainer.run()
    assert numpy.isnan(seen[0])


def test_save_and_load_continue_the_interval(tmp_path):
    def run(stop, average):
        trainer = _trainer(tmp_path, (stop, 'iteration'))
        seen = []
        _extend(trainer, average, seen)
        trainer.run()
        return {i: v for i, v in seen if v is not None}

    uninterrupted = run(8, extensions.MicroAverage('main/correct', 'main/total', 'acc',
                                                   trigger=(4, 'iteration')))
    first = extensions.MicroAverage('main/correct', 'main/total', 'acc',
                                    trigger=(4, 'iteration'))
    run(2, first)
    path = tmp_path / 'average.npz'
    serializers.save_npz(str(path), first)
    with numpy.load(path) as stored:
        assert sorted(stored.files) == ['_denominator', '_numerator',
                                        'trigger/previous_epoch_detail',
                                        'trigger/previous_iteration']
        assert int(stored['_numerator']) == int(_correct(1)) + int(_correct(2))
    resumed = extensions.MicroAverage('main/correct', 'main/total', 'acc',
                                      trigger=(4, 'iteration'))
    serializers.load_npz(str(path), resumed)
    trainer = _trainer(tmp_path, (8, 'iteration'))
    # Continue from iteration 2 in a trainer whose updater starts there.
    trainer.updater.iteration = 2
    for _ in range(2):
        trainer.updater.get_iterator('main').next()
    seen = []
    _extend(trainer, resumed, seen)
    trainer.run()
    assert {i: v for i, v in seen if v is not None} == uninterrupted


def test_loads_a_snapshot_without_the_trigger_as_chainer_writes_it(tmp_path):
    path = tmp_path / 'chainer.npz'
    numpy.savez(path, _numerator=numpy.array(3.0), _denominator=numpy.array(8))
    average = extensions.MicroAverage('n', 'd', 'r')
    with pytest.warns(UserWarning, match='previous_(iteration|epoch_detail)'):
        serializers.load_npz(str(path), average)
    assert (average._numerator, average._denominator) == (3.0, 8)


def test_keys_must_be_strings():
    with pytest.raises(TypeError, match='denominator_key must be a str'):
        extensions.MicroAverage('n', 3, 'r')
