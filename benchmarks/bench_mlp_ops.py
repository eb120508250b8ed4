"""The ops of an MLP at typical sizes: softmax, log_softmax, matmul and sum.

Every case works on float32 arrays of a batch of 100 and 1000 units, where the
time goes to NumPy/BLAS rather than to the engine: what the case measures is
whether catena adds copies, casts or temporaries that PyTorch does not.

Cases (one op per call; ``x`` and, for matmul, ``W`` require gradients):

``mlp_ops/<op>/forward``
    ``y = op(...)``, recording the graph.
``mlp_ops/<op>/forward+backward``
    the same, then backpropagation from a fixed output gradient ``gy``
    (``y.grad = gy; y.backward()`` in catena, ``y.backward(gy)`` in torch).

``<op>`` is ``softmax`` (axis 1), ``log_softmax`` (axis 1), ``matmul``
(``x @ W``, (100, 1000) by (1000, 1000)) or ``sum`` (over axis 1).

The issue's target is at most 1.3x PyTorch's time on every case.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

BATCH = 100
UNITS = 1000
DTYPE = np.float32
SEED = 0
TARGET = 1.3

OPS = ("softmax", "log_softmax", "matmul", "sum")


def data(op: str) -> tuple[list[np.ndarray], np.ndarray]:
    """The inputs of ``op`` and the output gradient its backward starts from."""
    rng = np.random.default_rng(SEED)
    x = rng.uniform(-1.0, 1.0, (BATCH, UNITS)).astype(DTYPE)
    inputs = [x]
    if op == "matmul":
        inputs.append(rng.uniform(-0.05, 0.05, (UNITS, UNITS)).astype(DTYPE))
    out_shape = (BATCH,) if op == "sum" else (BATCH, UNITS)
    gy = rng.uniform(-1.0, 1.0, out_shape).astype(DTYPE)
    return inputs, gy


# -- catena ---------------------------------------------------------------------------


def _catena_op(op: str) -> Callable[..., Any]:
    import catena.functions as F

    if op == "matmul":
        return F.matmul
    if op == "sum":
        return lambda x: F.sum(x, axis=1)
    fn = getattr(F, op)
    return lambda x: fn(x, axis=1)


def catena_factory(op: str, backward: bool) -> Callable[[], Callable[[], Any]]:
    def factory() -> Callable[[], Any]:
        import catena

        fn = _catena_op(op)
        arrays, gy = data(op)
        inputs = [catena.Variable(a) for a in arrays]

        def forward() -> Any:
            return fn(*inputs)

        def forward_backward() -> Any:
            for v in inputs:
                v.cleargrad()
            y = fn(*inputs)
            y.grad = gy
            y.backward()
            return [v.grad for v in inputs]

        return forward_backward if backward else forward

    return factory


# -- torch ----------------------------------------------------------------------------


def _torch_op(op: str) -> Callable[..., Any]:
    import torch

    if op == "matmul":
        return torch.matmul
    if op == "sum":
        return lambda x: x.sum(dim=1)
    fn = getattr(torch, op)
    return lambda x: fn(x, dim=1)


def torch_factory(op: str, backward: bool) -> Callable[[], Callable[[], Any]]:
    def factory() -> Callable[[], Any]:
        import torch

        torch.set_num_threads(1)
        fn = _torch_op(op)
        arrays, gy_array = data(op)
        inputs = [torch.from_numpy(a).requires_grad_(True) for a in arrays]
        gy = torch.from_numpy(gy_array)

        def forward() -> Any:
            return fn(*inputs)

        def forward_backward() -> Any:
            for t in inputs:
                t.grad = None
            y = fn(*inputs)
            y.backward(gy)
            return [t.grad for t in inputs]

        return forward_backward if backward else forward

    return factory


# -- check ----------------------------------------------------------------------------


def check_factory(op: str) -> Callable[[], str]:
    def check() -> str:
        c_grads = [np.asarray(g) for g in catena_factory(op, True)()()]
        t_grads = [g.numpy() for g in torch_factory(op, True)()()]
        worst = 0.0
        for c, t in zip(c_grads, t_grads):
            if c.shape != t.shape or c.dtype != t.dtype:
                raise AssertionError(
                    f"{op} gradient: catena {c.dtype}{c.shape}, torch {t.dtype}{t.shape}")
            np.testing.assert_allclose(c, t, rtol=1e-4, atol=1e-5)
            worst = max(worst, float(np.max(np.abs(c - t))))
        c_y = np.asarray(catena_factory(op, False)()().array)
        t_y = torch_factory(op, False)()().detach().numpy()
        np.testing.assert_allclose(c_y, t_y, rtol=1e-4, atol=1e-5)
        return f"max |grad catena - grad torch| = {worst:.3g}"

    return check


def cases() -> list[dict[str, Any]]:
    found = []
    for op in OPS:
        for backward in (False, True):
            variant = "forward+backward" if backward else "forward"
            case = {
                "name": f"mlp_ops/{op}/{variant}",
                "ops": 1,
                "target": TARGET,
                "catena": catena_factory(op, backward),
                "torch": torch_factory(op, backward),
            }
            if backward:
                case["check"] = check_factory(op)
            found.append(case)
    return found
