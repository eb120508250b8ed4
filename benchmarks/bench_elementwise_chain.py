"""A chain of 200 small elementwise ops: the per-op overhead of the autograd engine.

The chain cycles ``h + a``, ``h * m`` and ``tanh(h)`` on a (10, 10) float32
array, then sums. At this size the arithmetic is negligible, so the time per op
is what the framework spends on dispatch, graph recording and (in the backward
case) backpropagation. ``a`` and ``m`` are constant arrays (no gradient), in
catena as plain NumPy arrays, in torch as tensors without ``requires_grad``.

Cases (times are reported per op, i.e. per call divided by 200):

``elementwise_chain/forward``
    build the graph and the sum; no backward.
``elementwise_chain/forward+backward``
    the same, then ``y.backward()``; the gradient of ``x`` is cleared first.
``elementwise_chain/forward-no-grad``
    the chain without recording a graph (``catena.no_backprop_mode()`` /
    ``torch.no_grad()``).

The catena side uses Chainer's public API only, as a user program would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

N_OPS = 200
SHAPE = (10, 10)
DTYPE = np.float32
SEED = 0


def data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The input ``x`` and the constants ``a`` (added) and ``m`` (multiplied)."""
    rng = np.random.default_rng(SEED)
    x = rng.uniform(-1.0, 1.0, SHAPE).astype(DTYPE)
    a = rng.uniform(-0.1, 0.1, SHAPE).astype(DTYPE)
    m = rng.uniform(0.9, 1.1, SHAPE).astype(DTYPE)
    return x, a, m


def chain(h: Any, a: Any, m: Any, tanh: Callable[[Any], Any]) -> Any:
    """Apply the N_OPS elementwise ops to ``h``; the same code serves both frameworks."""
    for i in range(N_OPS):
        step = i % 3
        if step == 0:
            h = h + a
        elif step == 1:
            h = h * m
        else:
            h = tanh(h)
    return h


# -- catena ---------------------------------------------------------------------------


def _catena_setup() -> tuple[Any, Any, Any, np.ndarray, np.ndarray]:
    import catena
    import catena.functions as F

    x, a, m = data()
    return catena, F, catena.Variable(x), a, m


def catena_forward() -> Callable[[], Any]:
    catena, F, x, a, m = _catena_setup()

    def run() -> Any:
        return F.sum(chain(x, a, m, F.tanh))

    return run


def catena_forward_backward() -> Callable[[], Any]:
    catena, F, x, a, m = _catena_setup()

    def run() -> Any:
        x.cleargrad()
        y = F.sum(chain(x, a, m, F.tanh))
        y.backward()
        return x.grad

    return run


def catena_forward_no_grad() -> Callable[[], Any]:
    catena, F, x, a, m = _catena_setup()

    def run() -> Any:
        with catena.no_backprop_mode():
            return F.sum(chain(x, a, m, F.tanh))

    return run


# -- torch ----------------------------------------------------------------------------


def _torch_setup() -> tuple[Any, Any, Any, Any]:
    import torch

    torch.set_num_threads(1)
    x, a, m = data()
    return (
        torch,
        torch.from_numpy(x).requires_grad_(True),
        torch.from_numpy(a),
        torch.from_numpy(m),
    )


def torch_forward() -> Callable[[], Any]:
    torch, x, a, m = _torch_setup()

    def run() -> Any:
        return chain(x, a, m, torch.tanh).sum()

    return run


def torch_forward_backward() -> Callable[[], Any]:
    torch, x, a, m = _torch_setup()

    def run() -> Any:
        x.grad = None
        y = chain(x, a, m, torch.tanh).sum()
        y.backward()
        return x.grad

    return run


def torch_forward_no_grad() -> Callable[[], Any]:
    torch, x, a, m = _torch_setup()

    def run() -> Any:
        with torch.no_grad():
            return chain(x, a, m, torch.tanh).sum()

    return run


# -- check ----------------------------------------------------------------------------


def check_gradients() -> str:
    """Run forward and backward once in both frameworks on the same data and compare."""
    c_grad = catena_forward_backward()()
    t_grad = torch_forward_backward()()
    c_grad = np.asarray(c_grad)
    t_grad = t_grad.detach().numpy()
    if c_grad.shape != t_grad.shape or c_grad.dtype != t_grad.dtype:
        raise AssertionError(
            f"gradient of x: catena {c_grad.dtype}{c_grad.shape}, "
            f"torch {t_grad.dtype}{t_grad.shape}"
        )
    np.testing.assert_allclose(c_grad, t_grad, rtol=1e-3, atol=1e-5)

    c_y = float(np.asarray(catena_forward()().array))
    t_y = float(torch_forward()().item())
    np.testing.assert_allclose(c_y, t_y, rtol=1e-3)
    diff = float(np.max(np.abs(c_grad - t_grad)))
    return f"y = {c_y:.6g} (torch {t_y:.6g}), max |dx catena - dx torch| = {diff:.3g}"


def cases() -> list[dict[str, Any]]:
    return [
        {
            "name": "elementwise_chain/forward",
            "ops": N_OPS,
            "catena": catena_forward,
            "torch": torch_forward,
        },
        {
            "name": "elementwise_chain/forward+backward",
            "ops": N_OPS,
            "target": 1.3,
            "catena": catena_forward_backward,
            "torch": torch_forward_backward,
            "check": check_gradients,
        },
        {
            "name": "elementwise_chain/forward-no-grad",
            "ops": N_OPS,
            "target": 1.0,
            "catena": catena_forward_no_grad,
            "torch": torch_forward_no_grad,
        },
    ]
