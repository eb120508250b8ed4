"""unchain_variables: cuts the graphs kept by keep_graph_on_report, after every extension."""

from __future__ import annotations

import numpy

import catena
import catena.links as L
from catena import datasets, iterators, optimizers, training
from catena.training import extensions


def _trainer(tmp_path, stop=(3, 'iteration')):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((12, 3)).astype(numpy.float32)
    t = (x[:, 0] > 0).astype(numpy.int32)
    model = L.Classifier(L.Linear(3, 2))
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), 4, shuffle=False)
    updater = training.StandardUpdater(iterator, optimizer)
    return training.Trainer(updater, stop, out=str(tmp_path / 'out'))


def _creators(trainer, priority):
    seen = []
    trainer.extend(lambda tr: seen.append(tr.observation['main/loss'].creator is not None),
                   name=f'look{priority}', priority=priority)
    return seen


def test_unchains_the_reported_variables_after_the_other_extensions(tmp_path):
    trainer = _trainer(tmp_path)
    extension = extensions.unchain_variables()
    assert extension.priority == 0
    trainer.extend(extension)
    before = _creators(trainer, training.PRIORITY_READER)
    after = _creators(trainer, -1)
    with catena.using_config('keep_graph_on_report', True):
        trainer.run()
    assert before == [True, True, True]
    assert after == [False, False, False]


def test_without_kept_graphs_it_does_not_fire(tmp_path):
    trainer = _trainer(tmp_path)
    calls = []

    class Counting(extensions.unchain_variables):
        def __call__(self, trainer):
            calls.append(trainer.updater.iteration)
            super().__call__(trainer)

    trainer.extend(Counting())
    trainer.run()
    assert calls == []


def test_the_trigger_follows_the_flag_at_the_previous_check():
    extension = extensions.unchain_variables()
    extension.initialize(None)
    assert extension.trigger(None) is False
    with catena.using_config('keep_graph_on_report', True):
        assert extension.trigger(None) is False
        assert extension.trigger(None) is True
    assert extension.trigger(None) is True
    assert extension.trigger(None) is False
