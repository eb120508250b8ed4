"""A small, fully seeded training run, driven by test_snapshot.py in a subprocess.

usage: python _resume_script.py OUT STOP PAUSE_AT RESULT

Trains a two-layer MLP with Adam on shuffled data (the shuffling comes from a
seeded RandomState inside the iterator's order sampler), with LogReport every
3 iterations and snapshot(autoload=True) every 4. When PAUSE_AT > 0, after
that iteration (and after its snapshot, if any) the run writes OUT/paused and
waits to be killed. It prints ``start <iteration>`` once the snapshot is
loaded, and at the end saves the whole trainer into RESULT.
"""

import os
import sys
import time

import numpy

import catena
import catena.functions as F
import catena.links as L
from catena import datasets, iterators, optimizers, serializers, training
from catena.training import extensions

SEED = 5


class MLP(catena.Chain):
    def __init__(self, rng):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(6, 8, initialW=rng.standard_normal((8, 6)).astype(numpy.float32))
            self.l2 = L.Linear(8, 3, initialW=rng.standard_normal((3, 8)).astype(numpy.float32))

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def build_trainer(out, stop, pause_at):
    rng = numpy.random.RandomState(SEED)
    x = rng.standard_normal((50, 6)).astype(numpy.float32)
    t = rng.randint(0, 3, size=50).astype(numpy.int32)
    model = L.Classifier(MLP(rng))
    optimizer = optimizers.Adam(alpha=0.01)
    optimizer.setup(model)
    sampler = iterators.ShuffleOrderSampler(numpy.random.RandomState(SEED + 1))
    # 7 does not divide 50: batches straddle epochs, so the order matters.
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), 7, order_sampler=sampler)
    updater = training.StandardUpdater(iterator, optimizer)
    trainer = training.Trainer(updater, (stop, 'iteration'), out=out)
    trainer.extend(extensions.LogReport(trigger=(3, 'iteration')))
    trainer.extend(extensions.snapshot(autoload=True), trigger=(4, 'iteration'))

    def announce_start(trainer):
        print(f'start {trainer.updater.iteration}', flush=True)

    # Below the snapshot's priority (-100): initialized after the autoload,
    # called after the snapshot of the same iteration.
    @training.make_extension(trigger=(1, 'iteration'), priority=-1000,
                             initializer=announce_start)
    def pause(trainer):
        if trainer.updater.iteration == pause_at:
            with open(os.path.join(out, 'paused'), 'w'):
                pass
            while True:
                time.sleep(60)

    trainer.extend(pause)
    return trainer


def main(argv):
    out, stop, pause_at, result = argv[0], int(argv[1]), int(argv[2]), argv[3]
    trainer = build_trainer(out, stop, pause_at)
    trainer.run()
    serializers.save_npz(result, trainer)


if __name__ == '__main__':
    main(sys.argv[1:])
