"""The Trainer: the loop, extension scheduling and priorities, errors, reporting."""

from __future__ import annotations

import numpy
import pytest

import catena.links as L
from catena import datasets, iterators, optimizers, training


def _trainer(tmp_path, stop=(10, 'iteration'), n=40, batch=8, **kwargs):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((n, 4)).astype(numpy.float32)
    t = (x.sum(axis=1) > 0).astype(numpy.int32)
    model = L.Classifier(L.Linear(4, 2))
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), batch, shuffle=False)
    updater = training.StandardUpdater(iterator, optimizer)
    return training.Trainer(updater, stop, out=str(tmp_path / 'out'), **kwargs)


def test_runs_until_the_stop_trigger_and_creates_the_output_folder(tmp_path):
    trainer = _trainer(tmp_path, stop=(2, 'epoch'))
    trainer.run()
    assert trainer.updater.iteration == 10
    assert trainer.updater.epoch == 2
    assert (tmp_path / 'out').is_dir()
    assert trainer.elapsed_time > 0
    with pytest.raises(RuntimeError, match='runs only once'):
        trainer.run()


def test_extensions_fire_on_their_triggers_in_priority_order(tmp_path):
    trainer = _trainer(tmp_path)
    calls = []

    @training.make_extension(trigger=(2, 'iteration'), priority=training.PRIORITY_READER)
    def reader(trainer):
        calls.append(('reader', trainer.updater.iteration))

    @training.make_extension(trigger=(5, 'iteration'), priority=training.PRIORITY_WRITER)
    def writer(trainer):
        calls.append(('writer', trainer.updater.iteration))

    trainer.extend(reader)
    trainer.extend(writer)
    trainer.extend(lambda trainer: calls.append(('every', trainer.updater.iteration)),
                   name='every', trigger=(4, 'iteration'), priority=training.PRIORITY_EDITOR)
    trainer.run()
    assert calls == [('reader', 2), ('every', 4), ('reader', 4), ('writer', 5), ('reader', 6),
                     ('every', 8), ('reader', 8), ('writer', 10), ('reader', 10)]


def test_the_observation_holds_the_main_model_reports(tmp_path):
    trainer = _trainer(tmp_path, stop=(3, 'iteration'))
    seen = []
    trainer.extend(lambda trainer: seen.append(sorted(trainer.observation)), name='look')
    trainer.run()
    assert seen == [['main/accuracy', 'main/loss']] * 3


def test_extension_names_defaults_and_clashes(tmp_path):
    trainer = _trainer(tmp_path)

    class Named(training.Extension):
        def __call__(self, trainer):
            pass

    first, second = Named(), Named()
    trainer.extend(first)
    trainer.extend(second)
    assert (first.name, second.name) == ('Named', 'Named_1')
    assert trainer.get_extension('Named_1') is second
    with pytest.raises(ValueError, match="no extension named 'Other'"):
        trainer.get_extension('Other')
    with pytest.raises(ValueError, match='"training" cannot be'):
        trainer.extend(Named(), name='training')
    with pytest.raises(TypeError, match='must be callable'):
        trainer.extend(3)


def test_initialize_before_training_and_call_before_training(tmp_path):
    trainer = _trainer(tmp_path, stop=(2, 'iteration'))
    calls = []

    class Ext(training.Extension):
        trigger = (1, 'epoch')

        def initialize(self, trainer):
            calls.append(('init', trainer.updater.iteration))

        def __call__(self, trainer):
            calls.append(('call', trainer.updater.iteration))

    trainer.extend(Ext(), call_before_training=True)
    trainer.run()
    assert calls == [('init', 0), ('call', 0)]


def test_an_error_reaches_on_error_and_finalize_then_propagates(tmp_path, capsys):
    trainer = _trainer(tmp_path)
    events = []

    def fail(trainer):
        if trainer.updater.iteration == 3:
            raise ArithmeticError('boom')

    def on_error(trainer, exc, tb):
        events.append(('on_error', str(exc), tb is not None))

    fail.on_error = on_error
    fail.finalize = lambda: events.append(('finalize',))
    trainer.extend(fail, name='fail')
    with pytest.raises(ArithmeticError, match='boom'):
        trainer.run()
    assert events == [('on_error', 'boom', True), ('finalize',)]
    assert 'Exception in the training loop: boom' in capsys.readouterr().err


def test_elapsed_time_needs_a_started_run(tmp_path):
    with pytest.raises(RuntimeError, match='has not started'):
        _trainer(tmp_path).elapsed_time
    done = _trainer(tmp_path)
    done._done = True
    done._snapshot_elapsed_time = 2.5
    assert done.elapsed_time == 2.5


def test_autoloading_extensions_initialize_first(tmp_path):
    trainer = _trainer(tmp_path, stop=(1, 'iteration'))
    order = []

    class Reader(training.Extension):
        priority = training.PRIORITY_WRITER

        def initialize(self, trainer):
            order.append('reader')

        def __call__(self, trainer):
            pass

    class Loader(Reader):
        priority = -100
        autoload = True

        def initialize(self, trainer):
            order.append('loader')

    trainer.extend(Reader())
    trainer.extend(Loader())
    trainer.run()
    assert order == ['loader', 'reader']
