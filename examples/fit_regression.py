"""Fit a small two-layer network to a generated regression problem.

This is the project's main job until the Trainer arrives: it builds a model
from Parameters and catena's functions, trains it with a hand-written SGD loop
on mini-batches, checks that the fit is good on held-out data, and fails
(exit status 1) if it is not.

    python examples/fit_regression.py [--epochs 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import catena
import catena.functions as F
from catena import Parameter, Variable


def make_dataset(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Noisy samples of y = sin(3 x0) + x1^2 / 2 on [-1, 1]^2."""
    x = rng.uniform(-1.0, 1.0, (n, 2)).astype(np.float32)
    y = np.sin(3 * x[:, :1]) + 0.5 * x[:, 1:] ** 2
    y += rng.normal(0.0, 0.05, y.shape)
    return x, y.astype(np.float32)


class TwoLayerNet:
    """tanh(x @ W1 + b1) @ W2 + b2, with parameters initialized like LeCun normal."""

    def __init__(self, n_in: int, n_hidden: int, n_out: int, rng: np.random.Generator):
        def weight(fan_in: int, fan_out: int) -> Parameter:
            scale = np.sqrt(1.0 / fan_in)
            return Parameter(rng.normal(0.0, scale, (fan_in, fan_out)).astype(np.float32))

        self.params = {
            'W1': weight(n_in, n_hidden), 'b1': Parameter(0.0, (n_hidden,)),
            'W2': weight(n_hidden, n_out), 'b2': Parameter(0.0, (n_out,)),
        }

    def __call__(self, x: Variable) -> Variable:
        p = self.params
        h = F.tanh(x @ p['W1'] + p['b1'])
        return h @ p['W2'] + p['b2']


def mean_squared_error(y: Variable, t: np.ndarray) -> Variable:
    diff = y - t
    return F.sum(diff * diff) / diff.size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--epochs', type=int, default=200)
    parser.add_argument('--batch-size', type=int, default=32)
    parser.add_argument('--lr', type=float, default=0.1)
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    x_train, y_train = make_dataset(512, rng)
    x_test, y_test = make_dataset(256, rng)
    model = TwoLayerNet(2, 32, 1, rng)

    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(x_train))
        total = 0.0
        for start in range(0, len(order), args.batch_size):
            batch = order[start:start + args.batch_size]
            loss = mean_squared_error(model(Variable(x_train[batch])), y_train[batch])
            for p in model.params.values():
                p.cleargrad()
            loss.backward()
            for p in model.params.values():
                p.array -= args.lr * p.grad
            total += float(loss.array) * len(batch)
        if epoch == 1 or epoch % 50 == 0:
            with catena.no_backprop_mode():
                test_loss = float(mean_squared_error(model(Variable(x_test)), y_test).array)
            print(f'epoch {epoch:4d}  train mse {total / len(order):.5f}  '
                  f'test mse {test_loss:.5f}')

    with catena.no_backprop_mode():
        test_loss = float(mean_squared_error(model(Variable(x_test)), y_test).array)
    baseline = float(np.mean((y_test - y_train.mean()) ** 2))
    print(f'final test mse {test_loss:.5f} (predicting the mean gives {baseline:.5f})')
    if not test_loss < 0.1 * baseline:
        print('the model did not learn the function', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
