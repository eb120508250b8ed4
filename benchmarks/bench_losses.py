"""softmax_cross_entropy, forward and backward, against torch's cross_entropy.

Two shapes (float32 scores, int32 labels in catena, int64 in torch as it
requires; mean over the batch on both sides):

``losses/softmax_cross_entropy/100x10``
    a classifier's batch: 100 examples, 10 classes.
``losses/softmax_cross_entropy/700x10000``
    the PTB language model's: 20 x 35 = 700 words, a 10000-word vocabulary.

Each call computes the loss and backpropagates into the scores. The target of
Functions III is at most 1.3x PyTorch's time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

SEED = 0
TARGET = 1.3
SHAPES = ((100, 10), (700, 10000))


def data(batch: int, classes: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal((batch, classes)).astype(np.float32)
    t = rng.integers(0, classes, batch).astype(np.int32)
    return x, t


def catena_factory(batch: int, classes: int) -> Callable[[], Callable[[], Any]]:
    def factory() -> Callable[[], Any]:
        import catena
        import catena.functions as F

        x_array, t = data(batch, classes)
        x = catena.Variable(x_array)

        def run() -> Any:
            x.cleargrad()
            loss = F.softmax_cross_entropy(x, t)
            loss.backward()
            return loss.array, x.grad

        return run

    return factory


def torch_factory(batch: int, classes: int) -> Callable[[], Callable[[], Any]]:
    def factory() -> Callable[[], Any]:
        import torch
        import torch.nn.functional as TF

        torch.set_num_threads(1)
        x_array, t_array = data(batch, classes)
        x = torch.from_numpy(x_array).requires_grad_(True)
        t = torch.from_numpy(t_array.astype(np.int64))

        def run() -> Any:
            x.grad = None
            loss = TF.cross_entropy(x, t)
            loss.backward()
            return loss, x.grad

        return run

    return factory


def check_factory(batch: int, classes: int) -> Callable[[], str]:
    def check() -> str:
        c_loss, c_grad = catena_factory(batch, classes)()()
        t_loss, t_grad = torch_factory(batch, classes)()()
        np.testing.assert_allclose(float(c_loss), float(t_loss.item()), rtol=1e-5)
        t_grad = t_grad.numpy()
        np.testing.assert_allclose(np.asarray(c_grad), t_grad, rtol=1e-4, atol=1e-7)
        diff = float(np.max(np.abs(np.asarray(c_grad) - t_grad)))
        losses = f"loss {float(c_loss):.6g} (torch {float(t_loss.item()):.6g})"
        return f"{losses}, max |dx catena - dx torch| = {diff:.3g}"

    return check


def cases() -> list[dict[str, Any]]:
    return [
        {
            "name": f"losses/softmax_cross_entropy/{batch}x{classes}",
            "ops": 1,
            "target": TARGET,
            "catena": catena_factory(batch, classes),
            "torch": torch_factory(batch, classes),
            "check": check_factory(batch, classes),
        }
        for batch, classes in SHAPES
    ]
