"""Small stand-ins for the Trainer, the updater and the NPZ (de)serializers.

The triggers only read a few attributes of the trainer and its updater, so
these fakes follow a SerialIterator's arithmetic (epoch_detail = epoch +
position / len(dataset)) without any model.
"""

import numpy as np


class FakeUpdater:
    """An updater over a dataset of ``dataset_size`` examples in batches of ``batch_size``."""

    def __init__(self, dataset_size=40, batch_size=8, iteration=0):
        self.dataset_size = dataset_size
        self.batch_size = batch_size
        self.iteration = iteration
        self.previous_epoch_detail = self._detail(iteration - 1) if iteration > 0 else None

    def _detail(self, iteration):
        position = iteration * self.batch_size
        return position // self.dataset_size + (position % self.dataset_size) / self.dataset_size

    @property
    def epoch(self):
        return self.iteration * self.batch_size // self.dataset_size

    @property
    def epoch_detail(self):
        return self._detail(self.iteration)

    @property
    def is_new_epoch(self):
        previous = (self.iteration - 1) * self.batch_size // self.dataset_size
        return self.iteration > 0 and previous != self.epoch

    def update(self):
        self.previous_epoch_detail = self.epoch_detail
        self.iteration += 1


class FakeTrainer:
    """Holds an updater, the observation of the current iteration and a settable clock."""

    def __init__(self, updater=None):
        self.updater = updater if updater is not None else FakeUpdater()
        self.observation = {}
        self.elapsed_time = 0.0


def run(trigger, trainer, iterations, observe=None):
    """Updates ``iterations`` times, calling the trigger after each; returns the firing iterations.

    ``observe(iteration)`` (if given) returns the observation of that iteration.
    """
    fired = []
    for _ in range(iterations):
        trainer.updater.update()
        iteration = trainer.updater.iteration
        trainer.observation = observe(iteration) if observe is not None else {}
        if trigger(trainer):
            fired.append(iteration)
    return fired


class DictSerializer:
    """Writes values into a flat dict under '/'-joined keys, as NPZ arrays."""

    def __init__(self, target=None, path=''):
        self.target = {} if target is None else target
        self.path = path

    def __getitem__(self, key):
        return DictSerializer(self.target, self.path + key + '/')

    def __call__(self, key, value):
        self.target[self.path + key] = None if value is None else np.asarray(value)
        return value


class DictDeserializer:
    """Reads values from a flat dict the way Chainer's NPZ deserializer does."""

    def __init__(self, source, path=''):
        self.source = source
        self.path = path

    def __getitem__(self, key):
        return DictDeserializer(self.source, self.path + key + '/')

    def __call__(self, key, value):
        stored = self.source[self.path + key]  # a missing key raises KeyError
        if stored is None:
            return None
        if value is None:
            return stored
        if isinstance(value, np.ndarray):
            np.copyto(value, stored)
            return value
        return type(value)(stored)
