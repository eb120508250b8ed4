"""One training step of an MLP: the optimizers issue's speed benchmark.

784-1000-1000-10 with ReLU, softmax cross entropy and MomentumSGD
(lr 0.01, momentum 0.9) on a batch of 100, against the same step in PyTorch
(``torch.optim.SGD(momentum=0.9)``, whose update equals MomentumSGD's for a
constant learning rate). The step is about 1.08 GFLOP, so the ratio shows
what catena adds around BLAS: the graph, the backward and the update.

Case:

``train/mlp-784-1000-1000-10/momentum_sgd``
    ``optimizer.update(lossfun, x, t)`` / ``zero_grad; loss.backward();
    step()``.

The target of the optimizers issue is at most 1.1x PyTorch's time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

SEED = 0
SIZES = (784, 1000, 1000, 10)
BATCH = 100
LR = 0.01
MOMENTUM = 0.9
TARGET = 1.1


def data() -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    layers = []
    for n_in, n_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(n_in)
        layers.append((rng.uniform(-bound, bound, (n_out, n_in)).astype(np.float32),
                       rng.uniform(-bound, bound, n_out).astype(np.float32)))
    x = rng.uniform(0, 1, (BATCH, SIZES[0])).astype(np.float32)
    t = rng.integers(0, SIZES[-1], BATCH).astype(np.int32)
    return layers, x, t


def catena_step() -> tuple[Callable[[], Any], Any]:
    import catena
    import catena.functions as F
    import catena.links as L
    import catena.optimizers as O

    layers, x, t = data()
    model = catena.Sequential(*[
        part for index, (w, b) in enumerate(layers)
        for part in ([L.Linear(w.shape[1], w.shape[0], initialW=w, initial_bias=b)] +
                     ([F.relu] if index < len(layers) - 1 else []))])
    optimizer = O.MomentumSGD(lr=LR, momentum=MOMENTUM).setup(model)

    def lossfun(x: Any, t: Any) -> Any:
        return F.softmax_cross_entropy(model(x), t)

    def step() -> Any:
        optimizer.update(lossfun, x, t)

    return step, model


def torch_step() -> tuple[Callable[[], Any], Any]:
    import torch

    torch.set_num_threads(1)
    layers, x_array, t_array = data()
    modules: list[Any] = []
    for index, (w, b) in enumerate(layers):
        linear = torch.nn.Linear(w.shape[1], w.shape[0])
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(w))
            linear.bias.copy_(torch.from_numpy(b))
        modules.append(linear)
        if index < len(layers) - 1:
            modules.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*modules)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    lossfun = torch.nn.CrossEntropyLoss()
    x = torch.from_numpy(x_array)
    t = torch.from_numpy(t_array.astype(np.int64))

    def step() -> Any:
        optimizer.zero_grad(set_to_none=True)
        loss = lossfun(model(x), t)
        loss.backward()
        optimizer.step()

    return step, model


def check() -> str:
    catena_run, catena_model = catena_step()
    torch_run, torch_model = torch_step()
    for _ in range(3):
        catena_run()
        torch_run()
    catena_weights = [p.array for p in catena_model.params() if p.ndim == 2]
    torch_weights = [p.detach().numpy() for p in torch_model.parameters() if p.ndim == 2]
    for mine, theirs in zip(catena_weights, torch_weights):
        np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-5)
    return "weights agree after 3 steps"


def cases() -> list[dict[str, Any]]:
    return [{
        "name": "train/mlp-784-1000-1000-10/momentum_sgd",
        "ops": 1,
        "target": TARGET,
        "catena": lambda: catena_step()[0],
        "torch": lambda: torch_step()[0],
        "check": check,
    }]
