"""observe_value and observe_lr: values written into the observation on a schedule."""

from __future__ import annotations

import numpy
import pytest

import catena.links as L
from catena import datasets, iterators, optimizers, training
from catena.training import extensions


def _trainer(tmp_path, optimizer, stop=(4, 'iteration')):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((8, 3)).astype(numpy.float32)
    t = (x[:, 0] > 0).astype(numpy.int32)
    model = L.Classifier(L.Linear(3, 2))
    optimizer.setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), 4, shuffle=False)
    updater = training.StandardUpdater(iterator, optimizer)
    return training.Trainer(updater, stop, out=str(tmp_path / 'out'))


def _look(trainer, key):
    seen = []
    trainer.extend(lambda tr: seen.append((tr.updater.iteration, tr.observation.get(key))),
                   name='look', trigger=(1, 'iteration'))
    return seen


def test_observe_lr_reports_the_optimizers_learning_rate(tmp_path):
    optimizer = optimizers.MomentumSGD(lr=0.05)
    trainer = _trainer(tmp_path, optimizer)

    def halve(tr):
        if tr.updater.iteration == 2:
            optimizer.lr /= 2

    trainer.extend(halve, name='halve', priority=training.PRIORITY_WRITER + 1)
    trainer.extend(extensions.observe_lr(), trigger=(1, 'iteration'))
    seen = _look(trainer, 'lr')
    trainer.run()
    assert seen == [(1, 0.05), (2, 0.025), (3, 0.025), (4, 0.025)]


def test_observe_lr_by_optimizer_name_and_key_once_per_epoch(tmp_path):
    trainer = _trainer(tmp_path, optimizers.SGD(lr=0.3))
    extension = extensions.observe_lr('main', 'main/lr')
    assert extension.trigger == (1, 'epoch')
    assert extension.priority == training.PRIORITY_WRITER
    trainer.extend(extension)
    seen = _look(trainer, 'main/lr')
    trainer.run()
    # 8 examples in batches of 4: epochs end at iterations 2 and 4.
    assert seen == [(1, None), (2, 0.3), (3, None), (4, 0.3)]


def test_observe_value_records_the_function_of_the_trainer(tmp_path):
    trainer = _trainer(tmp_path, optimizers.SGD())
    extension = extensions.observe_value('twice', lambda tr: 2 * tr.updater.iteration)
    trainer.extend(extension, trigger=(2, 'iteration'))
    seen = _look(trainer, 'twice')
    trainer.run()
    assert seen == [(1, None), (2, 4), (3, None), (4, 8)]
    assert extension.name == '_observe_value'  # Chainer's default name


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match='observation_key must be a str'):
        extensions.observe_value(1, lambda tr: 0)
    with pytest.raises(TypeError, match='target_func must be callable'):
        extensions.observe_value('x', 0)
