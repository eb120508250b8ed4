"""A small real Trainer and streams for the reporting extensions' tests.

Loaded by the test modules with importlib (pytest runs in importlib mode, so
this folder is not a package).
"""

import io

import numpy

import catena
import catena.links as L
from catena import datasets, iterators, optimizers, training

# 40 examples in batches of 10: 4 iterations per epoch.
N_EXAMPLES = 40
BATCH_SIZE = 10


def make_trainer(out, stop=(3, 'epoch'), seed=0):
    """A Classifier(Linear(3, 2)) trained by SGD on a fixed dataset without shuffling.

    The same seed gives the same data and initial weights, so two trainers
    made with it compute exactly the same steps.
    """
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal((N_EXAMPLES, 3)).astype(numpy.float32)
    t = (x.sum(axis=1) > 0).astype(numpy.int32)
    initial_w = (rng.standard_normal((2, 3)) * 0.5).astype(numpy.float32)
    model = L.Classifier(L.Linear(3, 2, initialW=initial_w))
    optimizer = optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), BATCH_SIZE, shuffle=False)
    updater = training.StandardUpdater(iterator, optimizer)
    return training.Trainer(updater, stop, out=str(out))


def add_recorder(trainer, keys=('main/loss', 'main/accuracy')):
    """Records ``(epoch, iteration, {key: float})`` of every iteration's observation."""
    records = []

    @training.make_extension(priority=training.PRIORITY_READER)
    def record(trainer):
        observation = trainer.observation
        values = {key: float(_array(observation[key])) for key in keys if key in observation}
        records.append((trainer.updater.epoch, trainer.updater.iteration, values))

    trainer.extend(record)
    return records


def _array(value):
    return value.array if isinstance(value, catena.Variable) else value


def add_reported_value(trainer, key='value', scale=0.125):
    """Reports ``key = scale * iteration`` every iteration, before the readers run."""

    @training.make_extension(priority=training.PRIORITY_WRITER)
    def report_value(trainer):
        catena.report({key: scale * trainer.updater.iteration})

    trainer.extend(report_value)


class FakeTerminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self):
        return True
