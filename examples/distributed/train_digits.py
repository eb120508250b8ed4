"""Data-parallel training of the digits classifier on several MPI processes.

    mpiexec -n 2 python examples/distributed/train_digits.py [--epochs 10]

ChainerMN's recipe, with ``catena.distributed``: every process holds a copy
of the model (``ConvNet`` of ``examples/train_digits.py``) and trains it on its
share of the training set (``scatter_dataset``); the multi-node optimizer
replaces each step's gradients by their mean over the processes, so the
copies stay identical; the multi-node evaluator averages the validation
results over the processes. Rank 0 prints the report and writes the log.
The job fails (exit status 1) below 90% validation accuracy (``--min-accuracy``),
or when the processes end with different parameters.

Needs mpi4py and an MPI (``pip install './packages/core[mpi]'`` brings both)
and scikit-learn for the data.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from typing import Any

import numpy as np

import catena
import catena.links as L
from catena import distributed, training
from catena.training import extensions

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from train_digits import ConvNet, load_digits  # noqa: E402


def parameters_agree(model: Any, comm: Any) -> bool:
    """Whether every process holds exactly rank 0's parameters."""
    mine = np.concatenate([param.array.ravel() for _, param in sorted(model.namedparams())])
    reference = comm.bcast_obj(mine if comm.rank == 0 else None)
    return all(comm.allreduce_obj([bool(np.array_equal(mine, reference))]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--epochs', type=int, default=10)
    parser.add_argument('--batchsize', type=int, default=16,
                        help='examples per process and step')
    parser.add_argument('--communicator', default='naive')
    parser.add_argument('--min-accuracy', type=float, default=0.90)
    parser.add_argument('--out', default='result/digits-mpi')
    args = parser.parse_args(argv)

    comm = distributed.create_communicator(args.communicator)
    np.random.seed(comm.rank)  # noqa: NPY002 - the first update copies rank 0's weights
    if comm.rank == 0:
        train, valid = load_digits(seed=0)
        print(f'{comm.size} processes, {len(train)} training and {len(valid)} validation '
              f'images, {args.batchsize} per process and step')
    else:
        train, valid = None, None
    train = distributed.scatter_dataset(train, comm, shuffle=True, seed=0)
    valid = distributed.scatter_dataset(valid, comm)

    model = L.Classifier(ConvNet())
    optimizer = distributed.create_multi_node_optimizer(catena.optimizers.Adam(), comm)
    optimizer.setup(model)
    train_iter = catena.iterators.SerialIterator(train, args.batchsize)
    valid_iter = catena.iterators.SerialIterator(valid, 256, repeat=False, shuffle=False)
    updater = training.StandardUpdater(train_iter, optimizer)
    trainer = training.Trainer(updater, (args.epochs, 'epoch'), out=args.out)
    trainer.extend(distributed.create_multi_node_evaluator(
        extensions.Evaluator(valid_iter, model), comm))
    if comm.rank == 0:
        trainer.extend(extensions.LogReport())
        trainer.extend(extensions.PrintReport(
            ['epoch', 'main/loss', 'validation/main/loss', 'validation/main/accuracy',
             'elapsed_time']))
    trainer.run()

    agree = parameters_agree(model, comm)
    if comm.rank != 0:
        return 0 if agree else 1
    accuracy = float(trainer.get_extension('LogReport').log[-1]['validation/main/accuracy'])
    print(f'\nvalidation accuracy: {accuracy:.4f} (required: {args.min_accuracy}); '
          f'parameters identical on all {comm.size} processes: {agree}')
    if accuracy < args.min_accuracy or not agree:
        print('FAILED', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
