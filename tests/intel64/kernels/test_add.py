"""oneDNN kernels of x + y (Add) and F.add (MultiAdd): agreement, gradients, fallbacks, 'auto'."""

from __future__ import annotations

from typing import Any

import numpy
import pytest

import catena
import catena.functions as F
from catena import gradient_check
from catena.functions.math import basic_math as nodes

catena_intel64 = pytest.importorskip('catena_intel64')

from catena_intel64 import _primitive  # noqa: E402

pytestmark = pytest.mark.ideep




def _arrays(shapes: list[tuple[int, ...]], dtype: Any = numpy.float32,
            seed: int = 0) -> list[numpy.ndarray]:
    rng = numpy.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(dtype) for shape in shapes]


def _add(xs: list[Any]) -> Any:
    """``x0 + x1`` for two inputs (Add), ``F.add`` for more (MultiAdd)."""
    if len(xs) == 2:
        return xs[0] + xs[1]
    return F.add(*xs)


def _run(config: str, xs: list[numpy.ndarray],
         gy: numpy.ndarray) -> tuple[numpy.ndarray, list[numpy.ndarray], Any]:
    """Forward and backward under ``use_ideep=config``: ``y, [gx...], node``."""
    with catena.using_config('use_ideep', config):
        variables = [catena.Variable(x) for x in xs]
        y = _add(variables)
        y.grad = gy
        y.backward()
    return y.array, [v.grad for v in variables], y.creator


SHAPES = [(1,), (7,), (3, 5), (2, 3, 5, 7), (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2),
          (16, 64, 8, 8)]


@pytest.mark.parametrize('n', [2, 3, 5])
@pytest.mark.parametrize('shape', SHAPES)
def test_agrees_with_the_generic_path(shape: tuple[int, ...], n: int) -> None:
    xs = _arrays([shape] * n)
    gy = _arrays([shape], seed=1)[0]
    before = _primitive.calls['add']
    y, gxs, node = _run('always', xs, gy)
    # x0 + x1 into y, then y += x for each further input.
    assert _primitive.calls['add'] - before == n - 1
    assert type(node) is (nodes.Add if n == 2 else nodes.MultiAdd)
    assert node.implementation.startswith('oneDNN add (')
    before = _primitive.calls['add']
    y_ref, gxs_ref, node_ref = _run('never', xs, gy)
    assert _primitive.calls['add'] == before
    if n > 2:  # MultiAdd's backward reads the shapes it stored; Add's reads its input nodes
        assert list(node.shapes) == [shape] * n
        assert list(node_ref.shapes) == list(node.shapes)
    assert y.shape == shape and y.dtype == numpy.float32
    numpy.testing.assert_allclose(y, y_ref, rtol=1e-6, atol=1e-6)
    for gx, gx_ref in zip(gxs, gxs_ref):
        numpy.testing.assert_array_equal(gx, gx_ref)


def test_same_array_twice_and_non_contiguous() -> None:
    a, = _arrays([(6, 8)])
    x = a.T                                     # F-ordered
    before = _primitive.calls['add']
    with catena.using_config('use_ideep', 'always'):
        v = catena.Variable(x)
        y = v + v
        z = F.add(v, catena.Variable(a[::2].repeat(2, axis=0).T), v)
    assert _primitive.calls['add'] - before == 3
    numpy.testing.assert_array_equal(y.array, 2 * x)
    numpy.testing.assert_allclose(z.array, 2 * x + a[::2].repeat(2, axis=0).T, rtol=1e-6)


@pytest.mark.parametrize('n', [2, 3])
def test_gradient_check(n: int) -> None:
    xs = tuple(_arrays([(3, 4)] * n, seed=2))
    gy = _arrays([(3, 4)], seed=3)[0]
    ggxs = tuple(_arrays([(3, 4)] * n, seed=4))
    before = _primitive.calls['add']
    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_backward(lambda *xs: _add(list(xs)), xs, gy,
                                      eps=1e-2, atol=1e-3, rtol=1e-3)
        gradient_check.check_double_backward(lambda *xs: _add(list(xs)), xs, gy, ggxs,
                                             eps=1e-2, atol=1e-3, rtol=1e-3)
    assert _primitive.calls['add'] > before


@pytest.mark.parametrize('shapes', [[(3, 4), (4,)], [(3, 1), (1, 4)], [(3, 4), (3, 4), (1, 4)],
                                    [(), ()], [(0, 3), (0, 3)], [(2, 3)]])
def test_broadcasting_and_degenerate_inputs_fall_back(shapes: list[tuple[int, ...]]) -> None:
    xs = _arrays(shapes)
    y_shape = numpy.broadcast_shapes(*shapes)
    gy = _arrays([y_shape], seed=1)[0]
    before = _primitive.calls['add']
    y, gxs, node = _run('always', xs, gy)
    assert _primitive.calls['add'] == before
    assert not hasattr(node, 'implementation')
    y_ref, gxs_ref, _ = _run('never', xs, gy)
    numpy.testing.assert_array_equal(y, y_ref)
    for gx, gx_ref, shape in zip(gxs, gxs_ref, shapes):
        assert gx.shape == shape
        numpy.testing.assert_array_equal(gx, gx_ref)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float64])
@pytest.mark.parametrize('n', [2, 3])
def test_other_dtypes_fall_back(dtype: Any, n: int) -> None:
    xs = _arrays([(4, 5)] * n, dtype)
    gy = numpy.ones((4, 5), dtype)
    before = _primitive.calls['add']
    y, gxs, node = _run('always', xs, gy)
    assert _primitive.calls['add'] == before
    assert not hasattr(node, 'implementation')
    assert y.dtype == dtype
    y_ref, _, _ = _run('never', xs, gy)
    numpy.testing.assert_array_equal(y, y_ref)


@pytest.mark.parametrize('n', [2, 4])
def test_auto_leaves_every_size_to_numpy(n: int) -> None:
    # NumPy's + is memory-bound and as fast as oneDNN's at every size measured.
    from catena_intel64.kernels.math import basic_math as kernels

    assert kernels.AUTO_MIN_ELEMENTS == float('inf')
    xs = _arrays([(1 << 20,)] * n)
    before = _primitive.calls['add']
    with catena.using_config('use_ideep', 'auto'):
        y = _add([catena.Variable(x) for x in xs])
    assert _primitive.calls['add'] == before
    expected = xs[0] + xs[1]
    for x in xs[2:]:
        expected += x
    numpy.testing.assert_array_equal(y.array, expected)
