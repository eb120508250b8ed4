"""The heavy ops of a CNN and an RNN: convolution, pooling, batch normalization, an LSTM step.

Every case runs forward and backward from a fixed output gradient on float32
data, against the same computation in PyTorch (CPU, one thread for both sides;
see ``run.py``).

Cases (one op per call):

``cnn_ops/convolution_2d``
    batch 16, 64 -> 64 channels, 56x56, 3x3 kernel, stride 1, pad 1, with bias.
``cnn_ops/max_pooling_2d``
    batch 16, 64 channels, 56x56, 3x3 window, stride 2, pad 1.
``cnn_ops/batch_normalization``
    batch 16, 64 channels, 56x56, training mode (batch statistics).
``cnn_ops/lstm_step``
    ``F.lstm`` on the gates of ``linear(x) + linear(h)``: batch 20, 200 units.

Targets for the generic NumPy path (Functions II): within 3x PyTorch on
convolution (PyTorch uses oneDNN; catena-intel64 closes the rest), within
1.5x on batch normalization and the LSTM step. Pooling has no stated target;
it is reported against 3x.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

SEED = 0
DTYPE = np.float32
N, C, H, W = 16, 64, 56, 56
LSTM_BATCH, LSTM_UNITS = 20, 200


def _uniform(rng: np.random.Generator, shape: tuple[int, ...], scale: float = 1.0) -> np.ndarray:
    return rng.uniform(-scale, scale, shape).astype(DTYPE)


def data(op: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The inputs of ``op`` and the gradients of its outputs."""
    rng = np.random.default_rng(SEED)
    if op == "convolution_2d":
        inputs = [_uniform(rng, (N, C, H, W)), _uniform(rng, (C, C, 3, 3), 0.05),
                  _uniform(rng, (C,))]
        return inputs, [_uniform(rng, (N, C, H, W))]
    if op == "max_pooling_2d":
        return [_uniform(rng, (N, C, H, W))], [_uniform(rng, (N, C, 28, 28))]
    if op == "batch_normalization":
        inputs = [_uniform(rng, (N, C, H, W)), rng.uniform(0.5, 1.5, C).astype(DTYPE),
                  _uniform(rng, (C,))]
        return inputs, [_uniform(rng, (N, C, H, W))]
    if op == "lstm_step":
        units = LSTM_UNITS
        inputs = [_uniform(rng, (LSTM_BATCH, units)), _uniform(rng, (LSTM_BATCH, units)),
                  _uniform(rng, (LSTM_BATCH, units)),
                  _uniform(rng, (4 * units, units), 0.05), _uniform(rng, (4 * units, units), 0.05),
                  _uniform(rng, (4 * units,))]
        shape = (LSTM_BATCH, units)
        return inputs, [_uniform(rng, shape), _uniform(rng, shape)]
    raise ValueError(op)


# -- catena ---------------------------------------------------------------------------


def _catena_op(op: str) -> Callable[..., tuple[Any, ...]]:
    import catena.functions as F

    if op == "convolution_2d":
        return lambda x, w, b: (F.convolution_2d(x, w, b, stride=1, pad=1),)
    if op == "max_pooling_2d":
        return lambda x: (F.max_pooling_2d(x, 3, stride=2, pad=1, cover_all=False),)
    if op == "batch_normalization":
        return lambda x, g, b: (F.batch_normalization(x, g, b),)

    def lstm_step(x: Any, h: Any, c: Any, wx: Any, wh: Any, b: Any) -> tuple[Any, ...]:
        gates = F.linear(x, wx, b) + F.linear(h, wh)
        c_new, h_new = F.lstm(c, gates)
        return c_new, h_new

    return lstm_step


def catena_factory(op: str) -> Callable[[], Callable[[], Any]]:
    def factory() -> Callable[[], Any]:
        import catena

        fn = _catena_op(op)
        arrays, gys = data(op)
        inputs = [catena.Variable(a) for a in arrays]

        def run() -> Any:
            for v in inputs:
                v.cleargrad()
            ys = fn(*inputs)
            catena.backward(list(ys), list(gys))
            return [v.grad for v in inputs]

        return run

    return factory


# -- torch ----------------------------------------------------------------------------


def _torch_op(op: str) -> Callable[..., tuple[Any, ...]]:
    import torch
    import torch.nn.functional as TF

    if op == "convolution_2d":
        return lambda x, w, b: (TF.conv2d(x, w, b, stride=1, padding=1),)
    if op == "max_pooling_2d":
        return lambda x: (TF.max_pool2d(x, 3, stride=2, padding=1),)
    if op == "batch_normalization":
        return lambda x, g, b: (TF.batch_norm(x, None, None, g, b, training=True, eps=2e-5),)

    def lstm_step(x: Any, h: Any, c: Any, wx: Any, wh: Any, b: Any) -> tuple[Any, ...]:
        # catena's lstm takes the four gates interleaved per unit (a, i, f, o);
        # the same layout is unpacked here so that both sides compute the same.
        gates = (TF.linear(x, wx, b) + TF.linear(h, wh)).view(x.shape[0], -1, 4)
        a, i, f, o = gates.unbind(2)
        c_new = torch.tanh(a) * torch.sigmoid(i) + torch.sigmoid(f) * c
        h_new = torch.sigmoid(o) * torch.tanh(c_new)
        return c_new, h_new

    return lstm_step


def torch_factory(op: str) -> Callable[[], Callable[[], Any]]:
    def factory() -> Callable[[], Any]:
        import torch

        torch.set_num_threads(1)
        fn = _torch_op(op)
        arrays, gy_arrays = data(op)
        inputs = [torch.from_numpy(a).requires_grad_(True) for a in arrays]
        gys = [torch.from_numpy(g) for g in gy_arrays]

        def run() -> Any:
            for t in inputs:
                t.grad = None
            ys = fn(*inputs)
            torch.autograd.backward(ys, gys)
            return [t.grad for t in inputs]

        return run

    return factory


# -- check ----------------------------------------------------------------------------


def check_factory(op: str) -> Callable[[], str]:
    def check() -> str:
        c_grads = [np.asarray(g) for g in catena_factory(op)()()]
        t_grads = [g.numpy() for g in torch_factory(op)()()]
        worst = 0.0
        for index, (c, t) in enumerate(zip(c_grads, t_grads)):
            if c.shape != t.shape:
                raise AssertionError(f"{op} gradient {index}: catena {c.shape}, torch {t.shape}")
            scale = max(1.0, float(np.max(np.abs(t))))
            worst = max(worst, float(np.max(np.abs(c - t))) / scale)
        if worst > 1e-3:
            raise AssertionError(f"{op}: gradients differ by {worst:.3g} (relative to max)")
        return f"max relative |grad catena - grad torch| = {worst:.3g}"

    return check


TARGETS = {"convolution_2d": 3.0, "max_pooling_2d": 3.0, "batch_normalization": 1.5,
           "lstm_step": 1.5}


def cases() -> list[dict[str, Any]]:
    return [
        {
            "name": f"cnn_ops/{op}/forward+backward",
            "ops": 1,
            "target": target,
            "catena": catena_factory(op),
            "torch": torch_factory(op),
            "check": check_factory(op),
        }
        for op, target in TARGETS.items()
    ]
