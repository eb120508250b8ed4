"""Tell edible from poisonous mushrooms: a classifier on a categorical table.

The documentation's "Chainer at a glance" example. The real data set is
Kaggle's ``mushrooms.csv`` (8,124 rows, a class column ``e``/``p`` and 22
categorical attributes given as one-letter codes). This example writes a
generated table of the same layout to ``--out``/mushrooms.csv first (the
class follows mostly from the odor and the spore print colour, as in the
real data), unless ``--csv`` names a real file. Every attribute is one-hot
encoded, and an MLP wrapped in ``L.Classifier`` with
``F.sigmoid_cross_entropy`` and ``F.binary_accuracy`` learns the class.
The Trainer writes the log, the plots (with matplotlib), the computational
graph and a snapshot to ``--out``.

    python examples/mushroom/train_mushroom.py [--epoch 20] [--rows 2000] [--out result/mushroom]
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import numpy as np

import catena
import catena.functions as F
import catena.links as L
from catena import datasets, training
from catena.training import extensions

HEADER = ('class,cap-shape,cap-surface,cap-color,bruises,odor,gill-attachment,gill-spacing,'
          'gill-size,gill-color,stalk-shape,stalk-root,stalk-surface-above-ring,'
          'stalk-surface-below-ring,stalk-color-above-ring,stalk-color-below-ring,veil-type,'
          'veil-color,ring-number,ring-type,spore-print-color,population,habitat')
ODOR_COLUMN, SPORE_COLUMN = 5, 20
EDIBLE_ODORS = 'aln'        # almond, anise, none
POISONOUS_SPORES = 'rh'     # green, chocolate


def write_mushroom_csv(path: str, n_rows: int, seed: int = 0) -> None:
    """Writes a generated table in the layout of Kaggle's mushrooms.csv.

    Each of the 22 attributes takes one of a few letter codes at random. A
    mushroom is edible when its odor is one of ``EDIBLE_ODORS`` and its spore
    print colour is not in ``POISONOUS_SPORES``; 2% of the labels are flipped.
    """
    rng = np.random.default_rng(seed)
    names = HEADER.split(',')
    letters = np.array(list('abcdefghklmnoprstuvwxy'))
    table = np.empty((n_rows, len(names)), dtype='<U1')
    for column in range(1, len(names)):
        n_codes = 1 if names[column] == 'veil-type' else int(rng.integers(2, 10))
        codes = rng.choice(letters, n_codes, replace=False)
        table[:, column] = rng.choice(codes, n_rows)
    table[:, ODOR_COLUMN] = rng.choice(list('alncfmpsy'), n_rows)
    table[:, SPORE_COLUMN] = rng.choice(list('knbhrouwy'), n_rows)
    edible = (np.isin(table[:, ODOR_COLUMN], list(EDIBLE_ODORS))
              & ~np.isin(table[:, SPORE_COLUMN], list(POISONOUS_SPORES)))
    edible ^= rng.random(n_rows) < 0.02
    table[:, 0] = np.where(edible, 'e', 'p')
    # Write to a temporary name first: a half-written table is never read.
    tmp_path = path + '.tmp'
    np.savetxt(tmp_path, table, fmt='%s', delimiter=',', header=HEADER, comments='')
    os.replace(tmp_path, path)


def load_mushrooms(path: str) -> tuple[Any, Any]:
    """Reads the table: one-hot attributes (float32) and the class (int32, 1 = poisonous)."""
    data_array = np.genfromtxt(path, delimiter=',', dtype=str, skip_header=1)
    columns = []
    for col in range(1, data_array.shape[1]):
        codes = np.unique(data_array[:, col], return_inverse=True)[1].reshape(-1)
        columns.append(np.eye(codes.max() + 1, dtype=np.float32)[codes])
    X = np.concatenate(columns, axis=1)
    Y = (data_array[:, 0] == 'p').astype(np.int32)[:, None]
    return X, Y


def MLP(n_units: int, n_out: int) -> catena.Sequential:
    """Two hidden Linear+ReLU layers of ``n_units`` and a Linear output layer."""
    layer = catena.Sequential(L.Linear(n_units), F.relu)
    model = layer.repeat(2)
    model.append(L.Linear(n_out))
    return model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description='catena example: mushrooms')
    parser.add_argument('--csv', default=None,
                        help="a real mushrooms.csv (default: generate one in --out)")
    parser.add_argument('--rows', type=int, default=2000, help='rows of the generated table')
    parser.add_argument('--batchsize', '-b', type=int, default=100)
    parser.add_argument('--epoch', '-e', type=int, default=20)
    parser.add_argument('--unit', '-u', type=int, default=44,
                        help='units in each hidden layer')
    parser.add_argument('--lr', type=float, default=0.1, help='learning rate of SGD')
    parser.add_argument('--device', '-d', default='@numpy')
    parser.add_argument('--out', '-o', default='result/mushroom')
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args(argv)

    os.makedirs(args.out, exist_ok=True)
    csv_path = args.csv
    if csv_path is None:
        csv_path = os.path.join(args.out, 'mushrooms.csv')
        write_mushroom_csv(csv_path, args.rows, args.seed)
    X, Y = load_mushrooms(csv_path)
    train, test = datasets.split_dataset_random(
        datasets.TupleDataset(X, Y), int(len(X) * .7), seed=args.seed)

    train_iter = catena.iterators.SerialIterator(train, args.batchsize)
    test_iter = catena.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False)

    # One output unit: its sigmoid is the probability of "poisonous".
    model = L.Classifier(
        MLP(args.unit, 1), lossfun=F.sigmoid_cross_entropy, accfun=F.binary_accuracy)
    optimizer = catena.optimizers.SGD(lr=args.lr).setup(model)

    device = catena.get_device(args.device)
    updater = training.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)

    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    # The graph from the loss at the first iteration, in Graphviz's dot format.
    trainer.extend(extensions.DumpGraph('main/loss'))
    trainer.extend(extensions.snapshot(), trigger=(args.epoch, 'epoch'))
    trainer.extend(extensions.LogReport())
    if extensions.PlotReport.available():
        trainer.extend(extensions.PlotReport(
            ['main/loss', 'validation/main/loss'], 'epoch', filename='loss.png'))
        trainer.extend(extensions.PlotReport(
            ['main/accuracy', 'validation/main/accuracy'], 'epoch', filename='accuracy.png'))
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'validation/main/loss',
         'main/accuracy', 'validation/main/accuracy', 'elapsed_time']))
    trainer.extend(extensions.ProgressBar())

    trainer.run()

    # Predict one held-out mushroom.
    x, t = test[np.random.default_rng(args.seed).integers(len(test))]
    with catena.no_backprop_mode(), catena.using_config('train', False):
        y = model.predictor(device.send(x[None, :]))
    p_poisonous = float(F.sigmoid(y).array[0, 0])
    print(f'held-out mushroom: P(poisonous) = {p_poisonous:.3f}, '
          f'truly {"poisonous" if t[0] else "edible"}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
