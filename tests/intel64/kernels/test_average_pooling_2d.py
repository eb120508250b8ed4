"""oneDNN kernels of average_pooling_2d: agreement with the generic path, gradients, fallbacks."""

from __future__ import annotations

import collections
from typing import Any

import numpy
import pytest

import catena
import catena.functions as F
from catena import gradient_check
from catena.functions.pooling import average_pooling_2d as nodes

pytest.importorskip('catena_intel64')

from catena_intel64 import _primitive  # noqa: E402

pytestmark = pytest.mark.ideep

NAMES = ('average_pooling_2d', 'average_pooling_2d_grad')
TOL = {'atol': 1e-5, 'rtol': 1e-5}



def _calls() -> collections.Counter[str]:
    return collections.Counter({name: _primitive.calls[name] for name in NAMES})


def _delta(before: collections.Counter[str]) -> dict[str, int]:
    return {name: _primitive.calls[name] - before[name] for name in NAMES}


def _inputs(shape: tuple[int, ...], dtype: Any = numpy.float32, seed: int = 0) -> Any:
    return numpy.random.default_rng(seed).uniform(-1, 1, shape).astype(dtype)


def _pool(x: Any, ksize: Any, stride: Any, pad: Any, cover_all: bool) -> Any:
    """average_pooling_2d, or the node itself for ``cover_all`` (the wrapper has no such
    argument; the node has it, and its gradient's gradient uses it)."""
    if not cover_all:
        return F.average_pooling_2d(x, ksize, stride, pad)
    return nodes.AveragePooling2D(ksize, stride, pad, True).apply((x,))[0]


def _run(config: str, x: Any, gy: Any = None, **kwargs: Any) -> tuple[Any, ...]:
    """Forward and (with ``gy``) backward under ``use_ideep=config``: y, gx, node."""
    with catena.using_config('use_ideep', config):
        xv = catena.Variable(x.copy())
        y = _pool(xv, **kwargs)
        if gy is not None:
            y.grad = gy
            y.backward()
    return y.array, xv.grad, y.creator


GEOMETRIES = [
    # (shape, ksize, stride, pad, cover_all)
    ((2, 3, 6, 5), 2, None, 0, False),   # odd width: a column is cut off
    ((2, 3, 6, 5), 2, None, 0, True),
    ((2, 16, 7, 6), 3, 2, 1, False),
    ((2, 16, 7, 6), 3, 2, 1, True),     # the padding and the cover_all windows count as 0
    ((1, 5, 7, 5), (3, 2), (2, 1), (1, 0), False),
    ((1, 17, 4, 4), 4, 1, 0, False),
    ((1, 2, 3, 3), 3, 1, 2, False),
    ((3, 32, 9, 11), 3, 1, 1, False),
    ((2, 64, 7, 7), 7, 1, 0, False),    # global pooling (GoogLeNet, ResNet)
    ((2, 8, 13, 13), (5, 3), (3, 2), (2, 1), True),
]


def _kwargs(ksize: Any, stride: Any, pad: Any, cover_all: bool) -> dict[str, Any]:
    return {'ksize': ksize, 'stride': stride, 'pad': pad, 'cover_all': cover_all}


@pytest.mark.parametrize('shape, ksize, stride, pad, cover_all', GEOMETRIES)
def test_agrees_with_the_generic_path(shape: tuple[int, ...], ksize: Any, stride: Any, pad: Any,
                                      cover_all: bool) -> None:
    x = _inputs(shape)
    kwargs = _kwargs(ksize, stride, pad, cover_all)
    with catena.using_config('use_ideep', 'never'):
        y_shape = _pool(x, **kwargs).shape
    gy = _inputs(y_shape, seed=1)
    before = _calls()
    y, gx, node = _run('always', x, gy, **kwargs)
    assert _delta(before) == {'average_pooling_2d': 1, 'average_pooling_2d_grad': 1}
    assert node.implementation.startswith('oneDNN average_pooling_2d (')
    before = _calls()
    y_ref, gx_ref, _ = _run('never', x, gy, **kwargs)
    assert _delta(before) == {'average_pooling_2d': 0, 'average_pooling_2d_grad': 0}
    assert y.shape == y_ref.shape and gx.shape == x.shape
    assert y.dtype == gx.dtype == numpy.float32
    numpy.testing.assert_allclose(y, y_ref, **TOL)
    numpy.testing.assert_allclose(gx, gx_ref, **TOL)


def test_divides_by_the_whole_window() -> None:
    # Chainer's semantics: the padding counts as zeros, the divisor is always kh * kw.
    x = catena.Variable(numpy.ones((1, 16, 4, 4), numpy.float32))
    with catena.using_config('use_ideep', 'always'):
        y = F.average_pooling_2d(x, 3, 1, 1)
    assert y.creator.implementation.startswith('oneDNN average_pooling_2d')
    numpy.testing.assert_allclose(y.array[0, 0, 0], [4 / 9, 6 / 9, 6 / 9, 4 / 9], rtol=1e-6)
    numpy.testing.assert_allclose(y.array[0, 0, 1], [6 / 9, 1, 1, 6 / 9], rtol=1e-6)


@pytest.mark.parametrize('forward, backward', [('always', 'never'), ('never', 'always')])
def test_mixed_paths(forward: str, backward: str) -> None:
    x = _inputs((2, 16, 7, 9))
    gy = _inputs((2, 16, 4, 5), seed=2)
    with catena.using_config('use_ideep', forward):
        xv = catena.Variable(x)
        y = F.average_pooling_2d(xv, 3, 2, 1)
    before = _calls()
    with catena.using_config('use_ideep', backward):
        gx, = catena.grad([y], [xv], grad_outputs=[gy])
    assert _delta(before)['average_pooling_2d_grad'] == (backward == 'always')
    _, gx_ref, _ = _run('never', x, gy, ksize=3, stride=2, pad=1, cover_all=False)
    numpy.testing.assert_allclose(gx.array, gx_ref, **TOL)


@pytest.mark.parametrize('cover_all', [False, True])
def test_double_backward_with_the_kernels(cover_all: bool) -> None:
    x = _inputs((2, 16, 5, 5))
    results = {}
    for config in ('always', 'never'):
        before = _calls()
        with catena.using_config('use_ideep', config):
            xv = catena.Variable(x)
            y = _pool(xv, 3, 2, 1, cover_all)
            gy = catena.Variable(_inputs(y.shape, seed=3))
            gx, = catena.grad([y], [xv], grad_outputs=[gy], enable_double_backprop=True)
            assert type(gx.creator) is nodes.AveragePooling2DGrad
            ggx = catena.Variable(x * 2)
            ggy, = catena.grad([gx], [gy], grad_outputs=[ggx], enable_double_backprop=True)
            assert type(ggy.creator) is nodes.AveragePooling2D
        # The gradient's gradient is an average pooling again: the forward kernel once more.
        expected = 2 if config == 'always' else 0
        assert _delta(before) == {'average_pooling_2d': expected,
                                  'average_pooling_2d_grad': expected // 2}
        results[config] = y.array, gx.array, ggy.array
    for got, want in zip(results['always'], results['never']):
        numpy.testing.assert_allclose(got, want, **TOL)


@pytest.mark.parametrize('shape, ksize, stride, pad, cover_all', [
    ((2, 3, 6, 5), 2, None, 0, False),
    ((1, 16, 7, 6), 3, 2, 1, True),
    ((1, 4, 7, 5), (3, 2), (2, 1), (1, 0), False),
])
def test_gradient_check(shape: tuple[int, ...], ksize: Any, stride: Any, pad: Any,
                        cover_all: bool) -> None:
    x = _inputs(shape, seed=4)
    kwargs = _kwargs(ksize, stride, pad, cover_all)
    with catena.using_config('use_ideep', 'never'):
        y_shape = _pool(x, **kwargs).shape
    gy = _inputs(y_shape, seed=5)
    ggx = _inputs(shape, seed=6)
    before = _calls()
    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_backward(lambda x: _pool(x, **kwargs), x, gy,
                                      eps=1e-2, atol=1e-3, rtol=1e-3)
        gradient_check.check_double_backward(lambda x: _pool(x, **kwargs), x, gy, ggx,
                                             eps=1e-2, atol=1e-3, rtol=1e-3)
    delta = _delta(before)
    assert delta['average_pooling_2d'] > 0 and delta['average_pooling_2d_grad'] > 0


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float64])
def test_other_dtypes_fall_back(dtype: Any) -> None:
    x = _inputs((2, 16, 6, 6), dtype)
    gy = _inputs((2, 16, 3, 3), dtype, seed=1)
    before = _calls()
    y, gx, node = _run('always', x, gy, ksize=2, stride=2, pad=0, cover_all=False)
    assert _delta(before) == {'average_pooling_2d': 0, 'average_pooling_2d_grad': 0}
    assert not hasattr(node, 'implementation')
    y_ref, gx_ref, _ = _run('never', x, gy, ksize=2, stride=2, pad=0, cover_all=False)
    assert y.dtype == gx.dtype == dtype
    numpy.testing.assert_array_equal(y, y_ref)
    numpy.testing.assert_array_equal(gx, gx_ref)


@pytest.mark.parametrize('shape, ksize, stride, pad, cover_all', [
    ((1, 2, 4, 4), 2, 2, 2, False),      # pad >= ksize: windows wholly in the padding
    ((1, 2, 5, 5), 2, 4, 1, True),       # cover_all's last window lies in the padding
])
def test_windows_in_the_padding_fall_back(shape: tuple[int, ...], ksize: Any, stride: Any,
                                          pad: Any, cover_all: bool) -> None:
    x = _inputs(shape)
    kwargs = _kwargs(ksize, stride, pad, cover_all)
    gy = numpy.ones(_run('never', x, **kwargs)[0].shape, numpy.float32)
    before = _calls()
    y, gx, _ = _run('always', x, gy, **kwargs)
    assert _delta(before) == {'average_pooling_2d': 0, 'average_pooling_2d_grad': 0}
    y_ref, gx_ref, _ = _run('never', x, gy, **kwargs)
    assert (y_ref == 0).any()
    numpy.testing.assert_array_equal(y, y_ref)
    numpy.testing.assert_array_equal(gx, gx_ref)


def test_auto_runs_small_inputs_too() -> None:
    before = _calls()
    with catena.using_config('use_ideep', 'auto'):
        y = F.average_pooling_2d(_inputs((1, 1, 4, 4)), 2)
    assert _delta(before)['average_pooling_2d'] == 1
    assert y.shape == (1, 1, 2, 2)


def test_non_contiguous_input() -> None:
    x = _inputs((2, 16, 10, 8))[:, :, ::2].transpose(0, 1, 3, 2)
    assert not x.flags.c_contiguous
    y, _, _ = _run('always', x, ksize=3, stride=2, pad=1, cover_all=False)
    y_ref, _, _ = _run('never', numpy.ascontiguousarray(x), ksize=3, stride=2, pad=1,
                       cover_all=False)
    numpy.testing.assert_allclose(y, y_ref, **TOL)
