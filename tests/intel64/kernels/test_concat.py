"""oneDNN kernel of concat: agreement with the generic path, gradients, fallbacks, 'auto'."""

from __future__ import annotations

from typing import Any

import numpy
import pytest

import catena
import catena.functions as F
from catena import gradient_check
from catena.functions.array import concat as nodes

catena_intel64 = pytest.importorskip('catena_intel64')

from catena_intel64 import _primitive  # noqa: E402

pytestmark = pytest.mark.ideep




def _arrays(shapes: list[tuple[int, ...]], dtype: Any = numpy.float32,
            seed: int = 0) -> list[numpy.ndarray]:
    rng = numpy.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(dtype) for shape in shapes]


def _run(config: str, xs: list[numpy.ndarray], axis: int,
         gy: numpy.ndarray) -> tuple[numpy.ndarray, list[numpy.ndarray], Any]:
    """Forward and backward under ``use_ideep=config``: ``y, [gx...], node``."""
    with catena.using_config('use_ideep', config):
        variables = [catena.Variable(x) for x in xs]
        y = F.concat(variables, axis=axis)
        y.grad = gy
        y.backward()
    return y.array, [v.grad for v in variables], y.creator


def _shapes(base: tuple[int, ...], axis: int, sizes: tuple[int, ...]) -> list[tuple[int, ...]]:
    axis %= len(base)
    return [base[:axis] + (size,) + base[axis + 1:] for size in sizes]


# (shape with the concat axis's size left out by _shapes, axis, sizes along the axis)
CASES = [
    ((5,), 0, (3, 1, 4)),                      # 1-d
    ((2, 3), 0, (1, 2)),
    ((2, 3), 1, (3, 5)),
    ((2, 3), -1, (7,)),                        # a single input: a copy
    ((4, 1, 7, 5), 1, (64, 128, 32, 32)),      # inception-like channel concat
    ((3, 1, 5, 7), 1, (3, 5, 2, 1, 4)),        # odd channel counts
    ((3, 4, 5, 1), 3, (2, 3)),                 # the last axis
    ((3, 4, 5, 1), -2, (1, 6)),
    ((1, 2, 3, 2, 1), 2, (2, 3, 1)),           # 5-d
    ((2, 1, 3), 1, tuple(range(1, 20))),       # many inputs
]


@pytest.mark.parametrize('base, axis, sizes', CASES)
def test_agrees_with_the_generic_path(base: tuple[int, ...], axis: int,
                                      sizes: tuple[int, ...]) -> None:
    xs = _arrays(_shapes(base, axis, sizes))
    y_shape = _shapes(base, axis, (sum(sizes),))[0]
    gy = _arrays([y_shape], seed=1)[0]
    before = _primitive.calls['concat']
    y, gxs, node = _run('always', xs, axis, gy)
    assert _primitive.calls['concat'] - before == 1
    assert node.implementation.startswith('oneDNN concat (')
    assert node._axis == axis % len(base) and node._sizes == list(sizes)
    before = _primitive.calls['concat']
    y_ref, gxs_ref, node_ref = _run('never', xs, axis, gy)
    assert _primitive.calls['concat'] == before
    assert node_ref._axis == node._axis and node_ref._sizes == node._sizes
    assert y.shape == y_ref.shape and y.dtype == numpy.float32
    numpy.testing.assert_array_equal(y, y_ref)
    for gx, gx_ref, x in zip(gxs, gxs_ref, xs):
        assert gx.shape == x.shape
        numpy.testing.assert_array_equal(gx, gx_ref)


def test_non_contiguous_inputs() -> None:
    a, b = _arrays([(5, 4, 3), (3, 4, 2)], seed=2)
    xs = [a.transpose(2, 1, 0), b[::-1].transpose(2, 1, 0)]   # (3, 4, 5), (2, 4, 3)
    xs = [xs[0][:2], xs[1]]                                     # (2, 4, 5), (2, 4, 3)
    gy = _arrays([(2, 4, 8)], seed=3)[0]
    before = _primitive.calls['concat']
    y, gxs, _ = _run('always', xs, 2, gy)
    assert _primitive.calls['concat'] - before == 1
    numpy.testing.assert_array_equal(y, numpy.concatenate(xs, axis=2))
    numpy.testing.assert_array_equal(gxs[0], gy[:, :, :5])
    numpy.testing.assert_array_equal(gxs[1], gy[:, :, 5:])


def test_double_backward_concatenates_again() -> None:
    xs = _arrays([(2, 3, 4), (2, 1, 4)], seed=4)
    with catena.using_config('use_ideep', 'always'):
        variables = [catena.Variable(x) for x in xs]
        y = F.concat(variables, axis=1)
        gy = catena.Variable(_arrays([(2, 4, 4)], seed=5)[0])
        gxs = catena.grad([y], variables, grad_outputs=[gy], enable_double_backprop=True)
        before = _primitive.calls['concat']
        ggy, = catena.grad(list(gxs), [gy], grad_outputs=list(xs))
    # ConcatGrad's gradient is a Concat of the pieces' gradients: the kernel again.
    assert _primitive.calls['concat'] - before == 1
    numpy.testing.assert_array_equal(ggy.array, numpy.concatenate(xs, axis=1))


@pytest.mark.parametrize('base, axis, sizes', [((2, 3), 0, (1, 2)), ((2, 1, 3), 1, (2, 1, 3)),
                                               ((3, 2, 1), -1, (2, 2))])
def test_gradient_check(base: tuple[int, ...], axis: int, sizes: tuple[int, ...]) -> None:
    shapes = _shapes(base, axis, sizes)
    xs = tuple(_arrays(shapes, seed=6))
    gy = _arrays(_shapes(base, axis, (sum(sizes),)), seed=7)[0]
    ggxs = tuple(_arrays(shapes, seed=8))
    before = _primitive.calls['concat']
    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_backward(lambda *xs: F.concat(xs, axis), xs, gy,
                                      eps=1e-2, atol=1e-3, rtol=1e-3)
        gradient_check.check_double_backward(lambda *xs: F.concat(xs, axis), xs, gy, ggxs,
                                             eps=1e-2, atol=1e-3, rtol=1e-3)
    assert _primitive.calls['concat'] > before


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float64, numpy.int32])
def test_other_dtypes_fall_back(dtype: Any) -> None:
    xs = _arrays([(2, 3), (2, 4)], dtype)
    before = _primitive.calls['concat']
    with catena.using_config('use_ideep', 'always'):
        y = F.concat([catena.Variable(x, requires_grad=dtype != numpy.int32) for x in xs])
    assert _primitive.calls['concat'] == before
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.concatenate(xs, axis=1))


def test_empty_input_falls_back() -> None:
    xs = _arrays([(2, 0, 3), (2, 4, 3)])
    gy = _arrays([(2, 4, 3)], seed=1)[0]
    before = _primitive.calls['concat']
    y, gxs, node = _run('always', xs, 1, gy)
    assert _primitive.calls['concat'] == before
    assert not hasattr(node, 'implementation')
    numpy.testing.assert_array_equal(y, xs[1])
    assert gxs[0].shape == (2, 0, 3)
    numpy.testing.assert_array_equal(gxs[1], gy)


def test_auto_leaves_every_size_to_numpy() -> None:
    # numpy.concatenate (a memcpy per piece) was measured faster at every size.
    from catena_intel64.kernels.array import concat as kernel

    assert kernel.AUTO_MIN_BYTES == float('inf')
    for shapes in ([(4, 3), (4, 5)], [(1024, 256), (1024, 256)]):
        xs = _arrays(shapes)
        before = _primitive.calls['concat']
        with catena.using_config('use_ideep', 'auto'):
            y = F.concat([catena.Variable(x) for x in xs], axis=1)
        assert _primitive.calls['concat'] == before
        assert type(y.creator) is nodes.Concat
        assert not hasattr(y.creator, 'implementation')
        numpy.testing.assert_array_equal(y.array, numpy.concatenate(xs, axis=1))
