"""FailOnNonNumber: stops on a NaN or Inf parameter or gradient, naming it."""

from __future__ import annotations

import numpy
import pytest

import catena.links as L
from catena import datasets, iterators, optimizers, training
from catena.training import extensions


def _trainer(tmp_path, stop=(6, 'iteration')):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((16, 3)).astype(numpy.float32)
    t = (x[:, 0] > 0).astype(numpy.int32)
    model = L.Classifier(L.Linear(3, 2))
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), 4, shuffle=False)
    updater = training.StandardUpdater(iterator, optimizer)
    return training.Trainer(updater, stop, out=str(tmp_path / 'out')), model


def _at_iteration(n, action):
    def inject(trainer):
        if trainer.updater.iteration == n:
            action()
    return inject


def test_finite_training_runs_to_the_end(tmp_path):
    trainer, _ = _trainer(tmp_path)
    trainer.extend(extensions.FailOnNonNumber())
    trainer.run()
    assert trainer.updater.iteration == 6


@pytest.mark.parametrize('bad', [numpy.nan, numpy.inf, -numpy.inf])
def test_a_diverged_parameter_stops_training_and_is_named(tmp_path, bad):
    trainer, model = _trainer(tmp_path)

    def poison():
        model.predictor.W.array[1, 2] = bad

    trainer.extend(_at_iteration(3, poison), name='poison', priority=training.PRIORITY_WRITER)
    trainer.extend(extensions.FailOnNonNumber())
    with pytest.raises(RuntimeError, match=r"optimizer 'main' diverge: '/predictor/W'"):
        trainer.run(show_loop_exception_msg=False)
    assert trainer.updater.iteration == 3


def test_a_diverged_gradient_is_checked_unless_check_grad_is_false(tmp_path):
    trainer, model = _trainer(tmp_path)

    def poison():
        model.predictor.b.grad[0] = numpy.nan

    trainer.extend(_at_iteration(2, poison), name='poison', priority=training.PRIORITY_WRITER)
    trainer.extend(extensions.FailOnNonNumber())
    with pytest.raises(RuntimeError, match=r"gradients in optimizer 'main'.*'/predictor/b'"):
        trainer.run(show_loop_exception_msg=False)

    trainer, model = _trainer(tmp_path, stop=(2, 'iteration'))
    trainer.extend(_at_iteration(2, poison), name='poison', priority=training.PRIORITY_WRITER)
    trainer.extend(extensions.FailOnNonNumber(check_grad=False))
    trainer.run()
    assert numpy.isfinite(model.predictor.b.array).all()


def test_check_grad_is_keyword_only():
    with pytest.raises(TypeError):
        extensions.FailOnNonNumber(False)
