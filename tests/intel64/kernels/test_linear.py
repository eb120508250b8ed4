"""oneDNN kernels of linear: agreement with the generic path, gradients, fallbacks, 'auto'."""

# ruff: noqa: NPY002

from __future__ import annotations

import collections
from typing import Any

import numpy
import pytest

import catena
import catena.functions as F
from catena import gradient_check
from catena.functions.connection import linear as nodes

catena_intel64 = pytest.importorskip('catena_intel64')

from catena_intel64 import _primitive  # noqa: E402

pytestmark = pytest.mark.ideep

NAMES = ('linear', 'linear_grad_data', 'linear_grad_weight')
TOL = {'atol': 1e-4, 'rtol': 1e-4}



def _calls() -> collections.Counter[str]:
    return collections.Counter({name: _primitive.calls[name] for name in NAMES})


def _delta(before: collections.Counter[str]) -> dict[str, int]:
    return {name: _primitive.calls[name] - before[name] for name in NAMES}


def _inputs(x_shape: tuple[int, ...], w_shape: tuple[int, int], nobias: bool,
            dtype: Any = numpy.float32, seed: int = 0) -> tuple[Any, ...]:
    rng = numpy.random.default_rng(seed)
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    W = rng.uniform(-1, 1, w_shape).astype(dtype)
    b = None if nobias else rng.uniform(-1, 1, w_shape[0]).astype(dtype)
    return x, W, b


def _run(config: str, x: Any, W: Any, b: Any, gy: Any, n_batch_axes: int = 1) -> tuple[Any, ...]:
    """Forward and backward under ``use_ideep=config``: ``(y, gx, gW, gb), y``."""
    with catena.using_config('use_ideep', config):
        xv, Wv = catena.Variable(x), catena.Variable(W)
        bv = None if b is None else catena.Variable(b)
        y = F.linear(xv, Wv, bv, n_batch_axes=n_batch_axes)
        y.grad = gy
        y.backward()
    grads = (xv.grad, Wv.grad) + (() if bv is None else (bv.grad,))
    return (y.array,) + grads, y


# (x shape, out size, n_batch_axes)
CASES = [
    ((1, 1), 1, 1),
    ((4, 3), 5, 1),
    ((7, 13), 11, 1),
    ((8, 9), 3, 1),            # the fewest rows that run the forward on matmul
    ((1, 300), 17, 1),         # a single row: oneDNN's GEMV-like case
    ((33, 65), 1, 1),          # a single output
    ((2, 3, 4), 6, 1),         # flattened feature axes
    ((2, 3, 4), 6, 2),         # two batch axes
    ((64, 800), 500, 1),       # LeNet's fc layer
    ((3, 2, 5, 5), 10, 1),
]


@pytest.mark.parametrize('nobias', [False, True])
@pytest.mark.parametrize('x_shape, n_out, n_batch_axes', CASES)
def test_agrees_with_the_generic_path(x_shape: tuple[int, ...], n_out: int, n_batch_axes: int,
                                      nobias: bool) -> None:
    n_in = int(numpy.prod(x_shape[n_batch_axes:]))
    x, W, b = _inputs(x_shape, (n_out, n_in), nobias)
    gy = numpy.random.default_rng(1).uniform(
        -1, 1, x_shape[:n_batch_axes] + (n_out,)).astype(numpy.float32)
    before = _calls()
    got, y = _run('always', x, W, b, gy, n_batch_axes)
    assert _delta(before) == {name: 1 for name in NAMES}
    node = y.creator if n_batch_axes == 1 else y.creator.inputs[0].creator
    assert type(node) is nodes.LinearFunction
    assert node.implementation.startswith('oneDNN linear (')
    before = _calls()
    want, _ = _run('never', x, W, b, gy, n_batch_axes)
    assert _delta(before) == {name: 0 for name in NAMES}
    assert len(got) == len(want) == 3 + (not nobias)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == numpy.float32
        numpy.testing.assert_allclose(g, w, **TOL)


def test_non_contiguous_inputs() -> None:
    rng = numpy.random.default_rng(2)
    x = rng.uniform(-1, 1, (9, 6)).astype(numpy.float32).T        # (6, 9), F-ordered
    W = numpy.asfortranarray(rng.uniform(-1, 1, (4, 9)).astype(numpy.float32))
    b = rng.uniform(-1, 1, 8).astype(numpy.float32)[::2]          # strided
    gy = rng.uniform(-1, 1, (4, 6)).astype(numpy.float32).T
    before = _calls()
    got, _ = _run('always', x, W, b, gy)
    assert _delta(before) == {name: 1 for name in NAMES}
    want, _ = _run('never', x, W, b, gy)
    for g, w in zip(got, want):
        numpy.testing.assert_allclose(g, w, **TOL)


def test_grad_nodes_run_on_their_own() -> None:
    rng = numpy.random.default_rng(3)
    W = rng.uniform(-1, 1, (5, 7)).astype(numpy.float32)
    x = rng.uniform(-1, 1, (3, 7)).astype(numpy.float32)
    gy = rng.uniform(-1, 1, (3, 5)).astype(numpy.float32)
    with catena.using_config('use_ideep', 'always'):
        gx = nodes.LinearGradData().apply((W, gy))[0].array
        gW = nodes.LinearGradWeight().apply((x, gy))[0].array
    numpy.testing.assert_allclose(gx, gy @ W, **TOL)
    numpy.testing.assert_allclose(gW, gy.T @ x, **TOL)


def test_double_backward_with_the_kernels() -> None:
    x, W, b = _inputs((4, 6), (3, 6), False, seed=4)
    rng = numpy.random.default_rng(5)
    gy = rng.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    ggx = rng.uniform(-1, 1, (4, 6)).astype(numpy.float32)
    ggW = rng.uniform(-1, 1, (3, 6)).astype(numpy.float32)
    results = {}
    for config in ('always', 'never'):
        before = _calls()
        with catena.using_config('use_ideep', config):
            xv, Wv, bv, gyv = (catena.Variable(a) for a in (x, W, b, gy))
            y = F.linear(xv, Wv, bv)
            gx, gW = catena.grad([y], [xv, Wv], grad_outputs=[gyv],
                                 enable_double_backprop=True)
            outs = catena.grad([gx, gW], [xv, Wv, gyv], grad_outputs=[ggx, ggW])
        delta = _delta(before)
        if config == 'always':
            # gx = LinearGradData(W, gy), gW = LinearGradWeight(x, gy); their gradients
            # are LinearGradWeight(ggx, gy), LinearFunction(ggx, W), LinearGradData(ggW, gy)
            # and LinearFunction(x, ggW): every node ran on oneDNN.
            assert delta == {'linear': 3, 'linear_grad_data': 2, 'linear_grad_weight': 2}
        else:
            assert delta == {name: 0 for name in NAMES}
        results[config] = [y.array, gx.array, gW.array] + [o.array for o in outs]
    for got, want in zip(results['always'], results['never']):
        numpy.testing.assert_allclose(got, want, **TOL)


@pytest.mark.parametrize('nobias', [False, True])
@pytest.mark.parametrize('x_shape, n_out', [((3, 4), 2), ((1, 7), 5), ((5, 2, 3), 4)])
def test_gradient_check(x_shape: tuple[int, ...], n_out: int, nobias: bool) -> None:
    n_in = int(numpy.prod(x_shape[1:]))
    x, W, b = _inputs(x_shape, (n_out, n_in), nobias, seed=6)
    rng = numpy.random.default_rng(7)
    gy = rng.uniform(-1, 1, (x_shape[0], n_out)).astype(numpy.float32)
    args = (x, W) if b is None else (x, W, b)
    ggs = tuple(rng.uniform(-1, 1, a.shape).astype(numpy.float32) for a in args)
    before = _calls()
    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_backward(F.linear, args, gy, eps=1e-2, atol=1e-3, rtol=1e-3)
        gradient_check.check_double_backward(F.linear, args, gy, ggs, eps=1e-2, atol=1e-3,
                                             rtol=1e-3)
    assert all(count > 0 for count in _delta(before).values())


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float64])
def test_other_dtypes_fall_back(dtype: Any) -> None:
    x, W, b = _inputs((4, 5), (3, 5), False, dtype)
    gy = numpy.ones((4, 3), dtype)
    before = _calls()
    got, y = _run('always', x, W, b, gy)
    assert _delta(before) == {name: 0 for name in NAMES}
    assert not hasattr(y.creator, 'implementation')
    want, _ = _run('never', x, W, b, gy)
    for g, w in zip(got, want):
        assert g.dtype == dtype
        numpy.testing.assert_array_equal(g, w)


def test_empty_batch_falls_back() -> None:
    x, W, b = _inputs((0, 5), (3, 5), False)
    before = _calls()
    got, _ = _run('always', x, W, b, numpy.ones((0, 3), numpy.float32))
    assert _delta(before) == {name: 0 for name in NAMES}
    assert got[0].shape == (0, 3)
    numpy.testing.assert_array_equal(got[2], numpy.zeros((3, 5), numpy.float32))


def test_auto_leaves_small_products_to_numpy() -> None:
    from catena_intel64.kernels.connection import linear as kernels

    small = _inputs((4, 8), (4, 8), False)
    n = 64
    n_in = kernels.AUTO_MIN_MACS // (n * 64)
    large = _inputs((n, n_in), (64, n_in), False)
    for (x, W, b), expected in ((small, 0), (large, 1)):
        gy = numpy.ones((x.shape[0], W.shape[0]), numpy.float32)
        before = _calls()
        got, _ = _run('auto', x, W, b, gy)
        assert _delta(before) == {name: expected for name in NAMES}
        want, _ = _run('never', x, W, b, gy)
        for g, w in zip(got, want):
            numpy.testing.assert_allclose(g, w, **TOL)


@pytest.mark.parametrize('n', [2, 16])
def test_large_weights_are_used_in_place(n: int) -> None:
    # VGG's fc layers: the plain (out, in) weights are oneDNN's layout, with no reorder
    # (a reorder of W at every call would cost more than the product itself), both on
    # the inner product (few rows) and on matmul (W's transposed view).
    x, W, b = _inputs((n, 4096), (1000, 4096), False)
    with catena.using_config('use_ideep', 'always'):
        y = F.linear(catena.Variable(x), W, b)
    numpy.testing.assert_allclose(y.array, x @ W.T + b, atol=1e-3, rtol=1e-4)
    key = ('linear', n, 4096, 1000, True)
    operation = _primitive.cached(key, lambda: None)
    assert operation is not None
    assert operation._before == [] and operation._after == []


def test_bf16_fpmath_mode_runs() -> None:
    x, W, b = _inputs((16, 64), (32, 64), False)
    gy = numpy.ones((16, 32), numpy.float32)
    with catena.using_config('ideep_fpmath_mode', 'bf16'):
        got, _ = _run('always', x, W, b, gy)
    want, _ = _run('never', x, W, b, gy)
    for g, w in zip(got, want):
        numpy.testing.assert_allclose(g, w, atol=0.1, rtol=2e-2)
