"""Train the MNIST multi-layer perceptron with a hand-written training loop.

The documentation's "MNIST with a Manual Training Loop": no Trainer. Each
iteration takes a mini-batch with ``train_iter.next()``, stacks it with
``concat_examples``, computes the loss, clears the gradients, runs
``loss.backward()`` and ``optimizer.update()``. At the end of every epoch the
model is evaluated on the test set without building a graph
(``no_backprop_mode``) and in test mode (``using_config('train', False)``).
The trained model is saved to ``--out``/mnist.model.

The network and the generated data come from ``train_mnist.py`` next to this
file (``--data mnist`` reads the real MNIST through ``get_mnist()`` instead).

    python examples/mnist/train_mnist_custom_loop.py [--epoch 5] [--out result/mnist_loop]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import train_mnist

import catena
import catena.functions as F
from catena.dataset import concat_examples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description='catena example: MNIST, manual loop')
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
    parser.add_argument('--device', '-d', default='@numpy',
                        help='device specifier, e.g. @numpy or @cupy:0')
    parser.add_argument('--out', '-o', default='result/mnist_loop',
                        help='directory to write the trained model to')
    parser.add_argument('--unit', '-u', type=int, default=100,
                        help='number of units in each hidden layer')
    parser.add_argument('--seed', type=int, default=0, help='seed of the generated data')
    args = parser.parse_args(argv)

    device = catena.get_device(args.device)
    device.use()

    if args.data == 'mnist':
        train, test = catena.datasets.get_mnist()
    else:
        train, test = train_mnist.make_synthetic_mnist(args.n_train, args.n_test, args.seed)
    train_iter = catena.iterators.SerialIterator(train, args.batchsize)
    test_iter = catena.iterators.SerialIterator(test, args.batchsize, repeat=False, shuffle=False)

    model = train_mnist.MLP(args.unit, 10)
    model.to_device(device)
    optimizer = catena.optimizers.MomentumSGD(lr=0.01, momentum=0.9)
    optimizer.setup(model)

    while train_iter.epoch < args.epoch:
        # ---------- one iteration of the training loop ----------
        train_batch = train_iter.next()
        x, t = concat_examples(train_batch, device)
        loss = F.softmax_cross_entropy(model(x), t)
        # backward() accumulates into the gradients, so clear them first.
        model.cleargrads()
        loss.backward()
        optimizer.update()
        # ---------------------------------------------------------

        if train_iter.is_new_epoch:
            test_losses = []
            test_accuracies = []
            with catena.no_backprop_mode(), catena.using_config('train', False):
                for test_batch in test_iter:
                    x_test, t_test = concat_examples(test_batch, device)
                    y_test = model(x_test)
                    test_losses.append(float(F.softmax_cross_entropy(y_test, t_test).array))
                    test_accuracies.append(float(F.accuracy(y_test, t_test).array))
            # A non-repeating iterator has to be rewound before the next sweep.
            test_iter.reset()
            print(f'epoch:{train_iter.epoch:02d} train_loss:{float(loss.array):.04f} '
                  f'val_loss:{np.mean(test_losses):.04f} '
                  f'val_accuracy:{np.mean(test_accuracies):.04f}', flush=True)

    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, 'mnist.model')
    catena.serializers.save_npz(path, model)
    print(f'saved the trained model to {path}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
