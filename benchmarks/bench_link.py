"""The per-call overhead of a link: ``L.Linear(10, 10)`` on a (1, 10) input.

At this size the product is negligible, so the time is what a link call costs
(``__call__``, hooks, ``forward``, the function node) against
``torch.nn.Linear``'s module call.

Cases (one call each):

``link/linear-1x10/forward``
    ``y = link(x)``, recording the graph (the parameters require gradients).
``link/linear-1x10/forward+backward``
    the same, then the gradients of the parameters: ``cleargrads`` /
    ``zero_grad(set_to_none=True)``, ``y.grad = gy; y.backward()`` /
    ``y.backward(gy)``.

The target of the Links issue is at most 2x PyTorch's time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

SEED = 0
UNITS = 10
TARGET = 2.0


def data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    w = rng.uniform(-0.3, 0.3, (UNITS, UNITS)).astype(np.float32)
    b = rng.uniform(-0.1, 0.1, UNITS).astype(np.float32)
    x = rng.uniform(-1.0, 1.0, (1, UNITS)).astype(np.float32)
    gy = rng.uniform(-1.0, 1.0, (1, UNITS)).astype(np.float32)
    return w, b, x, gy


def catena_factory(backward: bool) -> Callable[[], Callable[[], Any]]:
    def factory() -> Callable[[], Any]:
        import catena.links as L

        w, b, x, gy = data()
        link = L.Linear(UNITS, UNITS, initialW=w, initial_bias=b)

        def forward() -> Any:
            return link(x)

        def forward_backward() -> Any:
            link.cleargrads()
            y = link(x)
            y.grad = gy
            y.backward()
            return link.W.grad, link.b.grad

        return forward_backward if backward else forward

    return factory


def torch_factory(backward: bool) -> Callable[[], Callable[[], Any]]:
    def factory() -> Callable[[], Any]:
        import torch

        torch.set_num_threads(1)
        w, b, x_array, gy_array = data()
        link = torch.nn.Linear(UNITS, UNITS)
        with torch.no_grad():
            link.weight.copy_(torch.from_numpy(w))
            link.bias.copy_(torch.from_numpy(b))
        x = torch.from_numpy(x_array)
        gy = torch.from_numpy(gy_array)

        def forward() -> Any:
            return link(x)

        def forward_backward() -> Any:
            link.zero_grad(set_to_none=True)
            y = link(x)
            y.backward(gy)
            return link.weight.grad, link.bias.grad

        return forward_backward if backward else forward

    return factory


def check() -> str:
    c_w, c_b = catena_factory(True)()()
    t_w, t_b = torch_factory(True)()()
    np.testing.assert_allclose(np.asarray(c_w), t_w.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(c_b), t_b.numpy(), rtol=1e-5, atol=1e-6)
    return "parameter gradients agree"


def cases() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for backward in (False, True):
        variant = "forward+backward" if backward else "forward"
        case: dict[str, Any] = {
            "name": f"link/linear-1x10/{variant}",
            "ops": 1,
            "target": TARGET,
            "catena": catena_factory(backward),
            "torch": torch_factory(backward),
        }
        if backward:
            case["check"] = check
        found.append(case)
    return found
