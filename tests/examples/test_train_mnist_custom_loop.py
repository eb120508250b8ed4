"""Smoke test of examples/mnist/train_mnist_custom_loop.py: the hand-written loop."""

from __future__ import annotations

import re

import numpy as np


def test_loop_evaluates_each_epoch_and_saves_the_model(run_example, tmp_path):
    out = tmp_path / 'result'
    completed = run_example('mnist/train_mnist_custom_loop.py', '--epoch', '3',
                            '--n-train', '600', '--n-test', '200', '--unit', '50',
                            '--batchsize', '50', '--out', str(out))

    lines = re.findall(r'epoch:(\d+) train_loss:([\d.]+) val_loss:([\d.]+) '
                       r'val_accuracy:([\d.]+)', completed.stdout)
    assert [int(epoch) for epoch, *_ in lines] == [1, 2, 3]
    val_losses = [float(line[2]) for line in lines]
    assert val_losses[-1] < val_losses[0]
    assert float(lines[-1][3]) > 0.3  # ten classes: chance is 0.1

    with np.load(out / 'mnist.model') as saved:
        assert saved['l1/W'].shape == (50, 784)
        assert saved['l3/W'].shape == (10, 50)
