"""catena's generic NumPy convolution against Chainer 7's algorithm, in the same process.

Chainer 7.8.1 no longer installs on a current Python and NumPy, so its CPU
convolution is reproduced here from its documented design, written for this
benchmark: im2col by one strided copy per kernel tap into
``(n, c, kh, kw, out_h, out_w)``, then ``numpy.tensordot`` over ``(c, kh, kw)``
for the output; the weight gradient runs im2col again and contracts over
``(n, out_h, out_w)``; the input gradient is ``tensordot(W, gy)`` then col2im.

``conv_numpy/resnet18-convs-b16/vs-chainer7-im2col``
    forward + backward (input and weight gradients) of every convolution of
    the ResNet-18-shaped network of ``bench_intel64.py`` (batch 16, 3x64x64,
    20 convolutions, no bias), catena with ``use_ideep='never'``; the reference
    column holds the Chainer-7-style computation, not torch.

Target: no slower than Chainer 7's way (a ratio of at most 1).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

BATCH = 16
TARGET = 1.0


def layers() -> list[tuple[int, int, int, int, int, int, int]]:
    """``(c_in, c_out, ksize, stride, pad, in_side, out_side)`` of each convolution."""
    import _intel64_models as models

    found = []
    for kind, n_in, n_out, ksize, stride, pad, out_side in models._layers('resnet18'):
        if kind == 'conv':
            in_side = (out_side - 1) * stride + ksize - 2 * pad
            found.append((n_in, n_out, ksize, stride, pad, in_side, out_side))
    return found


def data() -> list[tuple[np.ndarray, np.ndarray, np.ndarray, int, int]]:
    """Per convolution: ``x``, ``W``, the output gradient, stride and pad."""
    rng = np.random.default_rng(0)
    arrays = []
    for n_in, n_out, ksize, stride, pad, in_side, out_side in layers():
        x = rng.standard_normal((BATCH, n_in, in_side, in_side), dtype=np.float32)
        w = rng.standard_normal((n_out, n_in, ksize, ksize), dtype=np.float32)
        w *= np.float32(np.sqrt(2.0 / (n_in * ksize * ksize)))
        gy = rng.standard_normal((BATCH, n_out, out_side, out_side), dtype=np.float32)
        arrays.append((x, w, gy, stride, pad))
    return arrays


# -- Chainer 7's algorithm -----------------------------------------------------------


def _im2col(x: np.ndarray, k: int, s: int, p: int, out: int) -> np.ndarray:
    padded = np.pad(x, ((0, 0), (0, 0), (p, p + s - 1), (p, p + s - 1)))
    col = np.empty(x.shape[:2] + (k, k, out, out), dtype=x.dtype)
    for i in range(k):
        for j in range(k):
            col[:, :, i, j] = padded[:, :, i:i + s * out:s, j:j + s * out:s]
    return col


def _col2im(col: np.ndarray, s: int, p: int, side: int) -> np.ndarray:
    n, c, k, _, out, _ = col.shape
    img = np.zeros((n, c, side + 2 * p + s - 1, side + 2 * p + s - 1), dtype=col.dtype)
    for i in range(k):
        for j in range(k):
            img[:, :, i:i + s * out:s, j:j + s * out:s] += col[:, :, i, j]
    return img[:, :, p:p + side, p:p + side]


def chainer7_conv(x: np.ndarray, w: np.ndarray, gy: np.ndarray, s: int, p: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``y``, ``gx``, ``gW`` the way Chainer 7's CPU convolution computes them."""
    k, out = w.shape[2], gy.shape[2]
    col = _im2col(x, k, s, p, out)
    y = np.rollaxis(np.tensordot(col, w, ((1, 2, 3), (1, 2, 3))), 3, 1)
    gcol = np.rollaxis(np.tensordot(w, gy, (0, 1)), 3)
    gx = _col2im(gcol, s, p, x.shape[2])
    col = _im2col(x, k, s, p, out)  # the weight gradient's node runs im2col again
    gw = np.tensordot(gy, col, ((0, 2, 3), (0, 4, 5)))
    return y, gx, gw


def reference_factory() -> Callable[[], Any]:
    arrays = data()

    def run() -> Any:
        return [chainer7_conv(*a) for a in arrays]

    return run


# -- catena ---------------------------------------------------------------------------


def catena_conv(x: Any, w: Any, gy: np.ndarray, s: int, p: int) -> Any:
    import catena
    import catena.functions as F

    x.cleargrad()
    w.cleargrad()
    with catena.using_config('use_ideep', 'never'):
        y = F.convolution_2d(x, w, stride=s, pad=p)
        y.grad = gy
        y.backward()
    return y.array, x.grad, w.grad


def catena_factory() -> Callable[[], Any]:
    import catena

    arrays = [(catena.Variable(x), catena.Variable(w), gy, s, p) for x, w, gy, s, p in data()]

    def run() -> Any:
        return [catena_conv(*a) for a in arrays]

    return run


def check() -> str:
    worst = 0.0
    for x, w, gy, s, p in data():
        import catena

        ours = catena_conv(catena.Variable(x), catena.Variable(w), gy, s, p)
        for mine, theirs in zip(ours, chainer7_conv(x, w, gy, s, p)):
            scale = max(1.0, float(np.max(np.abs(theirs))))
            worst = max(worst, float(np.max(np.abs(np.asarray(mine) - theirs))) / scale)
    if worst > 1e-4:
        raise AssertionError(f'catena and the Chainer-7-style convolution differ by {worst:.3g}')
    return f'max relative |catena - Chainer 7 style| = {worst:.3g}'


def cases() -> list[dict[str, Any]]:
    return [{
        "name": f"conv_numpy/resnet18-convs-b{BATCH}/vs-chainer7-im2col",
        "ops": len(layers()),
        "target": TARGET,
        "catena": catena_factory,
        "torch": reference_factory,
        "check": check,
    }]
