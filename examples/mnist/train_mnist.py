"""Train a multi-layer perceptron on MNIST-shaped digits with the Trainer.

The documentation's MNIST example: an MLP (784-unit-unit-10) wrapped in
``L.Classifier``, optimized by Adam through a StandardUpdater, and a Trainer
with the Evaluator, LogReport, PrintReport, ProgressBar and snapshot
extensions. Everything lands in ``--out`` (the ``log`` file, the snapshots).

By default the data are generated (``--data synthetic``): every class is a
28x28 image with a bright blob at its own place, blurred by noise, so the
example needs no download and its accuracy rises within the first epoch. With
``--data mnist`` it reads the real digits through
``catena.datasets.get_mnist()`` (downloaded once into the dataset root).

    python examples/mnist/train_mnist.py [--epoch 5] [--unit 100] [--out result/mnist]
    python examples/mnist/train_mnist.py --data mnist --epoch 20 --unit 1000
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

import catena
import catena.functions as F
import catena.links as L
from catena import training
from catena.training import extensions


class MLP(catena.Chain):
    """Three fully connected layers: in -> n_units -> n_units -> n_out."""

    def __init__(self, n_units: int, n_out: int) -> None:
        super().__init__()
        with self.init_scope():
            # The input size is left as None: it is fixed by the first batch.
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x: Any) -> Any:
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


def make_synthetic_mnist(n_train: int, n_test: int, seed: int = 0) -> tuple[Any, Any]:
    """Generated stand-ins for ``get_mnist()``: flat float32 784-vectors in [0, 1].

    Class ``k`` is a Gaussian blob centred at its own place on a 28x28 grid
    (two rows of five); each example shifts the blob a little at random and
    adds uniform noise, so neighbouring classes overlap a little.

    Returns:
        The training and the test :class:`~catena.datasets.TupleDataset` of
        ``(image, label)`` pairs, labels int32 in ``[0, 10)``.
    """
    rng = np.random.default_rng(seed)
    rows, cols = np.mgrid[0:28, 0:28]
    centres = np.array([(row, col) for row in (9, 19) for col in (4, 9, 14, 19, 24)], float)

    def sample(n: int) -> Any:
        labels = rng.integers(0, 10, n).astype(np.int32)
        centre = centres[labels] + rng.normal(0.0, 1.0, (n, 2))
        dist2 = ((rows[None] - centre[:, 0, None, None]) ** 2
                 + (cols[None] - centre[:, 1, None, None]) ** 2)
        images = np.exp(-dist2 / 18.0) + rng.uniform(0.0, 0.5, (n, 28, 28))
        images = np.clip(images, 0.0, 1.0).reshape(n, 784).astype(np.float32)
        return catena.datasets.TupleDataset(images, labels)

    return sample(n_train), sample(n_test)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description='catena example: MNIST')
    parser.add_argument('--data', choices=('synthetic', 'mnist'), default='synthetic',
                        help='generated digits (default) or the real MNIST (downloads)')
    parser.add_argument('--n-train', type=int, default=6000,
                        help='number of generated training examples')
    parser.add_argument('--n-test', type=int, default=1000,
                        help='number of generated test examples')
    parser.add_argument('--batchsize', '-b', type=int, default=100,
                        help='number of images in each mini-batch')
    parser.add_argument('--epoch', '-e', type=int, default=5,
                        help='number of sweeps over the dataset to train')
    parser.add_argument('--frequency', '-f', type=int, default=-1,
                        help='frequency of taking a snapshot (in epochs; -1: at the end)')
    parser.add_argument('--device', '-d', default='@numpy',
                        help='device specifier, e.g. @numpy or @cupy:0')
    parser.add_argument('--out', '-o', default='result/mnist',
                        help='directory to output the result')
    parser.add_argument('--resume', '-r', default=None,
                        help='resume the training from this snapshot')
    parser.add_argument('--unit', '-u', type=int, default=100,
                        help='number of units in each hidden layer')
    parser.add_argument('--seed', type=int, default=0, help='seed of the generated data')
    args = parser.parse_args(argv)

    device = catena.get_device(args.device)
    device.use()
    print(f'Device: {device}  # unit: {args.unit}  # minibatch: {args.batchsize}  '
          f'# epoch: {args.epoch}')

    # Set up a neural network to train. Classifier reports the softmax cross
    # entropy loss and the accuracy at every iteration.
    model = L.Classifier(MLP(args.unit, 10))
    model.to_device(device)

    optimizer = catena.optimizers.Adam()
    optimizer.setup(model)

    if args.data == 'mnist':
        train, test = catena.datasets.get_mnist()
    else:
        train, test = make_synthetic_mnist(args.n_train, args.n_test, args.seed)
    train_iter = catena.iterators.SerialIterator(train, args.batchsize)
    test_iter = catena.iterators.SerialIterator(test, args.batchsize, repeat=False, shuffle=False)

    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)

    # Evaluate the model on the test set at the end of every epoch.
    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    # Take a snapshot of the whole trainer at every `frequency` epochs (or at
    # the end); --resume loads one to continue from there.
    frequency = args.epoch if args.frequency == -1 else max(1, args.frequency)
    trainer.extend(extensions.snapshot(), trigger=(frequency, 'epoch'))
    # Write a log of the statistics of every epoch to out/log.
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'validation/main/loss',
         'main/accuracy', 'validation/main/accuracy', 'elapsed_time']))
    # The progress bar draws only when the output is a terminal.
    trainer.extend(extensions.ProgressBar())

    if args.resume is not None:
        catena.serializers.load_npz(args.resume, trainer)

    trainer.run()
    return 0


if __name__ == '__main__':
    sys.exit(main())
