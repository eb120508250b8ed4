"""Evaluator: values against NumPy, test mode without graphs, naming, hooks, iterators."""

from __future__ import annotations

import copy
import io

import numpy
import pytest

import catena
import catena.links as L
from catena import datasets, iterators, optimizers, reporter as reporter_module, training
from catena.dataset.iterator import Iterator
from catena.training import extensions


def _data(n, seed):
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype(numpy.float32)
    t = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(numpy.int32)
    return x, t


def _trainer(tmp_path, stop=(2, 'epoch')):
    initial_w = numpy.random.default_rng(2).standard_normal((3, 4)).astype(numpy.float32)
    model = L.Classifier(L.Linear(4, 3, initialW=initial_w))
    optimizer = optimizers.SGD(lr=0.5).setup(model)
    train = iterators.SerialIterator(datasets.TupleDataset(*_data(12, 0)), 4, shuffle=False)
    updater = training.StandardUpdater(train, optimizer)
    return training.Trainer(updater, stop, out=str(tmp_path / 'out')), model


def _valid_iterator(n=10, batch=4):
    return iterators.SerialIterator(datasets.TupleDataset(*_data(n, 1)), batch, repeat=False,
                                    shuffle=False)


def _numpy_batches(model, x, t, batch):
    """Per-batch softmax cross entropy and accuracy, in float64."""
    W = model.predictor.W.array.astype(numpy.float64)
    b = model.predictor.b.array.astype(numpy.float64)
    losses, accuracies = [], []
    for start in range(0, len(x), batch):
        xs, ts = x[start:start + batch].astype(numpy.float64), t[start:start + batch]
        y = xs @ W.T + b
        shifted = y - y.max(axis=1, keepdims=True)
        log_p = shifted - numpy.log(numpy.exp(shifted).sum(axis=1, keepdims=True))
        losses.append(-log_p[numpy.arange(len(ts)), ts].mean())
        accuracies.append((y.argmax(axis=1) == ts).mean())
    return numpy.array(losses), numpy.array(accuracies)


def test_reports_the_mean_over_batches_under_the_validation_prefix(tmp_path):
    trainer, model = _trainer(tmp_path)
    evaluator = extensions.Evaluator(_valid_iterator(), model)
    trainer.extend(evaluator)
    seen = []
    trainer.extend(lambda tr: seen.append((tr.updater.iteration, dict(tr.observation))),
                   name='look', trigger=(1, 'iteration'))
    trainer.run()

    assert evaluator.name == 'validation'
    at_epoch_ends = [(it, obs) for it, obs in seen if 'validation/main/loss' in obs]
    assert [it for it, _ in at_epoch_ends] == [3, 6]
    observation = at_epoch_ends[-1][1]
    assert {'main/loss', 'main/accuracy', 'validation/main/loss',
            'validation/main/accuracy'} <= set(observation)

    x, t = _data(10, 1)
    losses, accuracies = _numpy_batches(model, x, t, 4)
    numpy.testing.assert_allclose(float(observation['validation/main/loss']), losses.mean(),
                                  rtol=1e-5)
    numpy.testing.assert_allclose(float(observation['validation/main/accuracy']),
                                  accuracies.mean(), rtol=1e-6)
    # Batches of 4, 4 and 2 examples: the mean over batches is not the mean
    # over examples, and the evaluator follows Chainer in taking the former.
    per_example = numpy.average(accuracies, weights=[4, 4, 2])
    assert abs(accuracies.mean() - per_example) > 1e-3


def test_evaluation_is_in_test_mode_without_graphs_and_restores_the_config(tmp_path):
    trainer, model = _trainer(tmp_path, stop=(1, 'epoch'))
    states = []

    def eval_func(x, t):
        y = model.predictor(x)
        states.append((catena.config.train, catena.config.enable_backprop, y.creator))
        loss = catena.functions.softmax_cross_entropy(y, t)
        reporter_module.report({'loss': loss}, model)

    trainer.extend(extensions.Evaluator(_valid_iterator(), model, eval_func=eval_func))
    trainer.run()
    assert states == [(False, False, None)] * 3
    assert catena.config.train is True
    assert catena.config.enable_backprop is True


def test_eval_hook_runs_first_at_each_evaluation_and_the_iterator_is_rewound(tmp_path):
    trainer, model = _trainer(tmp_path, stop=(3, 'epoch'))
    events = []

    def eval_hook(evaluator):
        events.append(('hook', evaluator.get_iterator('main').current_position))

    def eval_func(x, t):
        events.append(('batch', len(x)))
        model(x, t)

    evaluator = extensions.Evaluator(_valid_iterator(), model, eval_hook=eval_hook,
                                     eval_func=eval_func)
    trainer.extend(evaluator)
    trainer.run()
    one_sweep = [('batch', 4), ('batch', 4), ('batch', 2)]
    assert events == ([('hook', 0)] + one_sweep) * 3


def test_called_without_a_trainer_it_returns_and_reports_the_means():
    initial_w = numpy.random.default_rng(2).standard_normal((3, 4)).astype(numpy.float32)
    model = L.Classifier(L.Linear(4, 3, initialW=initial_w))
    evaluator = extensions.Evaluator(_valid_iterator(), model)
    result = evaluator()
    assert sorted(result) == ['main/accuracy', 'main/loss']
    x, t = _data(10, 1)
    losses, _ = _numpy_batches(model, x, t, 4)
    numpy.testing.assert_allclose(float(result['main/loss']), losses.mean(), rtol=1e-5)

    reporter = reporter_module.Reporter()
    observation = {}
    evaluator.name = 'val'
    with reporter.scope(observation):
        again = evaluator()
    assert sorted(observation) == ['val/main/accuracy', 'val/main/loss']
    assert float(observation['val/main/loss']) == float(again['val/main/loss'])
    assert float(again['val/main/loss']) == float(result['main/loss'])


def test_dicts_of_iterators_and_targets():
    main, aux = L.Classifier(L.Linear(4, 3)), L.Classifier(L.Linear(4, 3))
    valid, other = _valid_iterator(), _valid_iterator(6, 3)

    def eval_func(x, t):
        main(x, t)
        aux(x, t)

    evaluator = extensions.Evaluator({'main': valid, 'other': other},
                                     {'main': main, 'aux': aux}, eval_func=eval_func)
    assert evaluator.get_iterator('other') is other
    assert evaluator.get_all_iterators() == {'main': valid, 'other': other}
    assert evaluator.get_target('aux') is aux
    assert evaluator.get_all_targets() == {'main': main, 'aux': aux}
    evaluator.get_all_targets().clear()  # a copy
    assert evaluator.get_target('main') is main
    evaluator.name = 'validation'
    result = evaluator()
    assert sorted(result) == ['validation/aux/accuracy', 'validation/aux/loss',
                              'validation/main/accuracy', 'validation/main/loss']
    x, t = _data(10, 1)
    numpy.testing.assert_allclose(float(result['validation/aux/loss']),
                                  _numpy_batches(aux, x, t, 4)[0].mean(), rtol=1e-5)


def test_converter_and_device_are_passed():
    initial_w = numpy.random.default_rng(2).standard_normal((3, 4)).astype(numpy.float32)
    model = L.Classifier(L.Linear(4, 3, initialW=initial_w))
    devices = []

    def converter(batch, device):
        devices.append(device)
        return catena.dataset.concat_examples(batch, device)

    evaluator = extensions.Evaluator(_valid_iterator(), model, converter=converter,
                                     device='@numpy')
    assert str(evaluator.device) == '@numpy'
    evaluator()
    # A plain function is an old-style converter: it gets -1 for the CPU.
    assert devices == [-1] * 3


def test_a_repeating_iterator_warns_and_the_default_evaluate_refuses_it():
    initial_w = numpy.random.default_rng(2).standard_normal((3, 4)).astype(numpy.float32)
    model = L.Classifier(L.Linear(4, 3, initialW=initial_w))
    repeating = iterators.SerialIterator(datasets.TupleDataset(*_data(10, 1)), 4)
    with pytest.warns(UserWarning, match='repeat=True'):
        evaluator = extensions.Evaluator(repeating, model)
    with pytest.raises(ValueError, match="iterator 'main'.*repeat=True"):
        evaluator()

    class FixedBatches(extensions.Evaluator):
        def evaluate(self):
            return {}

    with pytest.warns(UserWarning, match='repeat=True'):
        FixedBatches(repeating, model)


def test_bad_arguments_are_named():
    initial_w = numpy.random.default_rng(2).standard_normal((3, 4)).astype(numpy.float32)
    model = L.Classifier(L.Linear(4, 3, initialW=initial_w))
    with pytest.raises(TypeError, match='iterator must be'):
        extensions.Evaluator([1, 2], model)
    with pytest.raises(TypeError, match=r"target\['main'\] must be"):
        extensions.Evaluator(_valid_iterator(), {'main': 3})


class _ListIterator(Iterator):
    """An iterator without reset(), which the evaluator copies."""

    def __init__(self, batches):
        self.batches = list(batches)
        self.position = 0

    def __next__(self):
        if self.position >= len(self.batches):
            raise StopIteration
        self.position += 1
        return self.batches[self.position - 1]

    def __copy__(self):
        clone = _ListIterator(self.batches)
        clone.position = self.position
        return clone


def test_an_iterator_without_reset_is_copied_and_left_untouched():
    x, t = _data(6, 2)
    batches = [list(zip(x[:3], t[:3])), list(zip(x[3:], t[3:]))]
    iterator = _ListIterator(batches)
    initial_w = numpy.random.default_rng(2).standard_normal((3, 4)).astype(numpy.float32)
    model = L.Classifier(L.Linear(4, 3, initialW=initial_w))
    first = extensions.Evaluator(iterator, model)()
    second = extensions.Evaluator(iterator, model)()
    assert iterator.position == 0
    assert float(first['main/loss']) == float(second['main/loss'])
    numpy.testing.assert_allclose(float(first['main/loss']),
                                  _numpy_batches(model, x, t, 3)[0].mean(), rtol=1e-5)
    assert copy.copy(iterator).position == 0


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_writes_only_to_a_terminal(monkeypatch):
    initial_w = numpy.random.default_rng(2).standard_normal((3, 4)).astype(numpy.float32)
    model = L.Classifier(L.Linear(4, 3, initialW=initial_w))
    terminal = _Terminal()
    monkeypatch.setattr('sys.stderr', terminal)
    extensions.Evaluator(_valid_iterator(), model, progress_bar=True)()
    text = terminal.getvalue()
    assert 'validation [' in text and '100.0%, 3 batches' in text
    assert text.count('\r') >= 3

    pipe = io.StringIO()
    monkeypatch.setattr('sys.stderr', pipe)
    extensions.Evaluator(_valid_iterator(), model, progress_bar=True)()
    assert pipe.getvalue() == ''


def test_defaults_and_finalize(tmp_path):
    assert extensions.Evaluator.trigger == (1, 'epoch')
    assert extensions.Evaluator.priority == training.PRIORITY_WRITER
    assert extensions.Evaluator.default_name == 'validation'

    finalized = []

    class Tracked(iterators.SerialIterator):
        def finalize(self):
            finalized.append(True)

    trainer, model = _trainer(tmp_path, stop=(1, 'epoch'))
    valid = Tracked(datasets.TupleDataset(*_data(10, 1)), 4, repeat=False, shuffle=False)
    trainer.extend(extensions.Evaluator(valid, model))
    trainer.run()
    assert finalized == [True]
