"""The Trainer's overhead: the full reporting extension set against a bare update loop.

Both sides train the MLP of ``bench_mlp_train.py`` (784-1000-1000-10, ReLU,
softmax cross entropy, MomentumSGD, batch 100) for 100 iterations per call on
the same data:

``trainer/mlp-100-iterations/vs-bare-loop``
    catena: ``Trainer.run()`` with LogReport (one entry per 100 iterations),
    PrintReport and ProgressBar rendering to a terminal-like stream; the
    reference column holds ``updater.update()`` called 100 times, not torch.

The target of the training issue: the extensions cost under 5% (a ratio
below 1.05).
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

ITERATIONS = 100
TARGET = 1.05


class _Terminal(io.StringIO):
    """A stream that says it is a terminal, so ProgressBar and PrintReport render."""

    def isatty(self) -> bool:
        return True


def _setup() -> tuple[Any, Any]:
    import bench_mlp_train as mlp
    import catena
    import catena.functions as F
    import catena.links as L
    from catena import datasets, iterators, optimizers, training

    layers, _, _ = mlp.data()
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 1, (10 * mlp.BATCH, mlp.SIZES[0])).astype(np.float32)
    t = rng.integers(0, mlp.SIZES[-1], len(x)).astype(np.int32)
    predictor = catena.Sequential(*[
        part for index, (w, b) in enumerate(layers)
        for part in ([L.Linear(w.shape[1], w.shape[0], initialW=w, initial_bias=b)] +
                     ([F.relu] if index < len(layers) - 1 else []))])
    model = L.Classifier(predictor)
    optimizer = optimizers.MomentumSGD(lr=mlp.LR, momentum=mlp.MOMENTUM).setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), mlp.BATCH)
    return training.StandardUpdater(iterator, optimizer), training


def trainer_factory() -> Callable[[], Any]:
    updater, training = _setup()
    from catena.training import extensions

    out = tempfile.mkdtemp(prefix='catena-bench-trainer-')
    terminal = _Terminal()

    def run() -> Any:
        stop = (updater.iteration + ITERATIONS, 'iteration')
        trainer = training.Trainer(updater, stop, out=out)
        log = extensions.LogReport(trigger=(ITERATIONS, 'iteration'))
        trainer.extend(log)
        trainer.extend(extensions.PrintReport(
            ['epoch', 'iteration', 'main/loss', 'main/accuracy', 'elapsed_time'], out=terminal))
        trainer.extend(extensions.ProgressBar(update_interval=10, out=terminal))
        trainer.run()
        terminal.seek(0)
        terminal.truncate()
        return log.log

    return run


def bare_factory() -> Callable[[], Any]:
    updater, _ = _setup()

    def run() -> Any:
        for _ in range(ITERATIONS):
            updater.update()

    return run


def cases() -> list[dict[str, Any]]:
    return [{
        "name": "trainer/mlp-100-iterations/vs-bare-loop",
        "ops": ITERATIONS,
        "target": TARGET,
        "catena": trainer_factory,
        "torch": bare_factory,
    }]
