"""oneDNN kernels of max_pooling_2d: agreement with the generic path, indexes, gradients."""

from __future__ import annotations

import collections
import math
from typing import Any

import numpy
import pytest

import catena
import catena.functions as F
from catena import gradient_check
from catena.functions.pooling import _window, max_pooling_2d as nodes

pytest.importorskip('catena_intel64')

from catena_intel64 import _primitive  # noqa: E402

pytestmark = pytest.mark.ideep

NAMES = ('max_pooling_2d', 'max_pooling_2d_grad')
TOL = {'atol': 1e-6, 'rtol': 1e-6}



def _calls() -> collections.Counter[str]:
    return collections.Counter({name: _primitive.calls[name] for name in NAMES})


def _delta(before: collections.Counter[str]) -> dict[str, int]:
    return {name: _primitive.calls[name] - before[name] for name in NAMES}


def _distinct(shape: tuple[int, ...], dtype: Any = numpy.float32, seed: int = 0) -> Any:
    """Distinct values spaced at least 1e-2 apart (no ties, safe for numerical gradients)."""
    size = math.prod(shape)
    values = numpy.random.default_rng(seed).permutation(size) * 1e-2 - size * 5e-3
    return values.reshape(shape).astype(dtype)


def _run(config: str, x: Any, gy: Any = None, **kwargs: Any) -> tuple[Any, ...]:
    """Forward and (with ``gy``) backward under ``use_ideep=config``: y, indexes, gx, node."""
    with catena.using_config('use_ideep', config):
        xv = catena.Variable(x.copy())
        y = F.max_pooling_2d(xv, **kwargs)
        node = y.creator
        if gy is not None:
            y.grad = gy
            y.backward()
    return y.array, node.indexes, xv.grad, node


GEOMETRIES = [
    # (shape, ksize, stride, pad, cover_all)
    ((2, 3, 6, 5), 2, None, 0, True),
    ((2, 3, 6, 5), 2, None, 0, False),   # odd width: a column is cut off
    ((2, 16, 7, 6), 3, 2, 1, True),
    ((2, 16, 7, 6), 3, 2, 1, False),
    ((1, 5, 7, 5), (3, 2), (2, 1), (1, 0), False),
    ((1, 17, 4, 4), 4, 1, 0, False),
    ((2, 2, 5, 5), 2, 3, 0, True),
    ((1, 2, 3, 3), 3, 1, 2, True),
    ((3, 32, 9, 11), 3, 2, 0, True),    # ResNet's stem pooling
    ((2, 8, 13, 13), (3, 4), (2, 3), (1, 1), True),
    ((1, 64, 14, 14), 2, 2, 0, True),   # VGG
]


def _kwargs(ksize: Any, stride: Any, pad: Any, cover_all: bool) -> dict[str, Any]:
    return {'ksize': ksize, 'stride': stride, 'pad': pad, 'cover_all': cover_all}


@pytest.mark.parametrize('shape, ksize, stride, pad, cover_all', GEOMETRIES)
def test_agrees_with_the_generic_path(shape: tuple[int, ...], ksize: Any, stride: Any, pad: Any,
                                      cover_all: bool) -> None:
    x = _distinct(shape)
    kwargs = _kwargs(ksize, stride, pad, cover_all)
    with catena.using_config('use_ideep', 'never'):
        y_shape = F.max_pooling_2d(x, **kwargs).shape
    gy = numpy.random.default_rng(1).standard_normal(y_shape).astype(numpy.float32)
    before = _calls()
    y, indexes, gx, node = _run('always', x, gy, **kwargs)
    assert _delta(before) == {'max_pooling_2d': 1, 'max_pooling_2d_grad': 1}
    assert node.implementation.startswith('oneDNN max_pooling_2d (')
    before = _calls()
    y_ref, indexes_ref, gx_ref, _ = _run('never', x, gy, **kwargs)
    assert _delta(before) == {'max_pooling_2d': 0, 'max_pooling_2d_grad': 0}
    numpy.testing.assert_array_equal(y, y_ref)
    assert indexes.dtype == indexes_ref.dtype
    numpy.testing.assert_array_equal(indexes, indexes_ref)
    # Overlapping windows add their gradients in another order.
    numpy.testing.assert_allclose(gx, gx_ref, **TOL)
    assert gx.dtype == numpy.float32 and gx.shape == x.shape


@pytest.mark.parametrize('ksize', [11, 12, 16, 17])
def test_large_windows_give_the_generic_index_dtype(ksize: int) -> None:
    # 121 taps fit int8 (oneDNN's u8 workspace is viewed); 144 and 256 need int16;
    # 289 taps make oneDNN's workspace s32.
    x = _distinct((2, 16, 21, 20))
    kwargs = _kwargs(ksize, 2, 1, True)
    with catena.using_config('use_ideep', 'never'):
        gy = numpy.ones(F.max_pooling_2d(x, **kwargs).shape, numpy.float32)
    before = _calls()
    y, indexes, gx, _ = _run('always', x, gy, **kwargs)
    assert _delta(before) == {'max_pooling_2d': 1, 'max_pooling_2d_grad': 1}
    y_ref, indexes_ref, gx_ref, _ = _run('never', x, gy, **kwargs)
    assert indexes.dtype == indexes_ref.dtype == _window.index_dtype(ksize * ksize)
    numpy.testing.assert_array_equal(indexes, indexes_ref)
    numpy.testing.assert_array_equal(y, y_ref)
    numpy.testing.assert_allclose(gx, gx_ref, **TOL)


@pytest.mark.parametrize('channels', [1, 16])
@pytest.mark.parametrize('ksize, stride, pad', [(3, 2, 1), (2, 2, 0), (3, 1, 1)])
def test_ties_take_the_first_maximum_as_the_generic_path(channels: int, ksize: int,
                                                         stride: int, pad: int) -> None:
    x = numpy.ones((2, channels, 6, 7), numpy.float32)
    x[:, :, ::2, 1::3] = 2
    results = {}
    for config in ('always', 'never'):
        with catena.using_config('use_ideep', config):
            y, indexes = F.max_pooling_2d(x, ksize, stride, pad, return_indices=True)
        results[config] = y.array, indexes
    numpy.testing.assert_array_equal(results['always'][0], results['never'][0])
    numpy.testing.assert_array_equal(results['always'][1], results['never'][1])
    assert results['always'][1].dtype == numpy.intp


def test_return_indices_without_backprop() -> None:
    x = _distinct((2, 16, 8, 8))
    before = _calls()
    with catena.using_config('use_ideep', 'always'), catena.no_backprop_mode():
        y, indexes = F.max_pooling_2d(x, 3, 2, 1, return_indices=True)
        y2 = F.max_pooling_2d(x, 3, 2, 1)
    assert _delta(before)['max_pooling_2d'] == 2
    with catena.using_config('use_ideep', 'never'):
        y_ref, indexes_ref = F.max_pooling_2d(x, 3, 2, 1, return_indices=True)
    numpy.testing.assert_array_equal(indexes, indexes_ref)
    numpy.testing.assert_array_equal(y.array, y_ref.array)
    numpy.testing.assert_array_equal(y2.array, y_ref.array)


def test_inference_keeps_no_indexes() -> None:
    # Without backprop the forward needs no workspace, as the generic forward needs no argmax.
    with catena.using_config('use_ideep', 'always'), catena.no_backprop_mode():
        node = nodes.MaxPooling2D(2)
        node.apply((_distinct((1, 16, 4, 4)),))
    assert node.indexes is None
    assert node.implementation.startswith('oneDNN max_pooling_2d')


@pytest.mark.parametrize('forward, backward', [('always', 'never'), ('never', 'always')])
def test_mixed_paths(forward: str, backward: str) -> None:
    # Either direction may run alone on oneDNN: both use the same indexes.
    x = _distinct((2, 16, 7, 9))
    gy = numpy.random.default_rng(2).standard_normal((2, 16, 4, 5)).astype(numpy.float32)
    with catena.using_config('use_ideep', forward):
        xv = catena.Variable(x)
        y = F.max_pooling_2d(xv, 3, 2, 1)
    before = _calls()
    with catena.using_config('use_ideep', backward):
        gx, = catena.grad([y], [xv], grad_outputs=[gy])
    assert _delta(before)['max_pooling_2d_grad'] == (backward == 'always')
    _, _, gx_ref, _ = _run('never', x, gy, ksize=3, stride=2, pad=1)
    numpy.testing.assert_allclose(gx.array, gx_ref, **TOL)


def test_double_backward_with_the_kernels() -> None:
    x = _distinct((2, 16, 5, 5))
    results = {}
    for config in ('always', 'never'):
        with catena.using_config('use_ideep', config):
            xv = catena.Variable(x)
            y = F.max_pooling_2d(xv, 3, 2, 1)
            gy = catena.Variable(numpy.ones(y.shape, numpy.float32))
            gx, = catena.grad([y], [xv], grad_outputs=[gy], enable_double_backprop=True)
            assert type(gx.creator) is nodes.MaxPooling2DGrad
            ggx = catena.Variable(x * 2)
            ggy, = catena.grad([gx], [gy], grad_outputs=[ggx], enable_double_backprop=True)
            assert type(ggy.creator) is nodes.MaxPooling2DWithIndexes
            # The grad of the gather is a scatter again: the grad kernel once more.
            before = _calls()
            g3, = catena.grad([ggy], [ggx], grad_outputs=[numpy.ones(y.shape, numpy.float32)])
            assert _delta(before)['max_pooling_2d_grad'] == (config == 'always')
        results[config] = gx.array, ggy.array, g3.array
    for got, expected in zip(results['always'], results['never']):
        numpy.testing.assert_allclose(got, expected, **TOL)
    numpy.testing.assert_array_equal(results['always'][1], 2 * y.array)


@pytest.mark.parametrize('shape, ksize, stride, pad, cover_all', [
    ((2, 3, 6, 5), 2, None, 0, True),
    ((1, 16, 7, 6), 3, 2, 1, False),
    ((1, 4, 7, 5), (3, 2), (2, 1), (1, 0), True),
])
def test_gradient_check(shape: tuple[int, ...], ksize: Any, stride: Any, pad: Any,
                        cover_all: bool) -> None:
    x = _distinct(shape, seed=3)
    kwargs = _kwargs(ksize, stride, pad, cover_all)
    with catena.using_config('use_ideep', 'never'):
        y_shape = F.max_pooling_2d(x, **kwargs).shape
    rng = numpy.random.default_rng(4)
    gy = rng.standard_normal(y_shape).astype(numpy.float32)
    ggx = rng.standard_normal(shape).astype(numpy.float32)
    before = _calls()
    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_backward(lambda x: F.max_pooling_2d(x, **kwargs), x, gy,
                                      eps=2e-3, atol=2e-3, rtol=2e-3)
        gradient_check.check_double_backward(lambda x: F.max_pooling_2d(x, **kwargs), x, gy,
                                             ggx, eps=2e-3, atol=2e-3, rtol=2e-3)
    delta = _delta(before)
    assert delta['max_pooling_2d'] > 0 and delta['max_pooling_2d_grad'] > 0


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float64])
def test_other_dtypes_fall_back(dtype: Any) -> None:
    x = _distinct((2, 16, 6, 6), dtype)
    gy = numpy.ones((2, 16, 3, 3), dtype)
    before = _calls()
    y, indexes, gx, node = _run('always', x, gy, ksize=2)
    assert _delta(before) == {'max_pooling_2d': 0, 'max_pooling_2d_grad': 0}
    assert not hasattr(node, 'implementation')
    y_ref, indexes_ref, gx_ref, _ = _run('never', x, gy, ksize=2)
    assert y.dtype == gx.dtype == dtype
    numpy.testing.assert_array_equal(y, y_ref)
    numpy.testing.assert_array_equal(indexes, indexes_ref)
    numpy.testing.assert_array_equal(gx, gx_ref)


@pytest.mark.parametrize('shape, ksize, stride, pad, cover_all', [
    ((1, 2, 4, 4), 2, 2, 2, True),       # pad >= ksize: windows wholly in the padding
    ((1, 2, 5, 5), 2, 4, 1, True),       # cover_all's last window lies in the padding
])
def test_windows_in_the_padding_fall_back(shape: tuple[int, ...], ksize: Any, stride: Any,
                                          pad: Any, cover_all: bool) -> None:
    x = _distinct(shape)
    kwargs = _kwargs(ksize, stride, pad, cover_all)
    before = _calls()
    y, indexes, _, _ = _run('always', x, **kwargs)
    assert _delta(before)['max_pooling_2d'] == 0
    y_ref, indexes_ref, _, _ = _run('never', x, **kwargs)
    assert numpy.isneginf(y_ref).any()
    numpy.testing.assert_array_equal(y, y_ref)
    numpy.testing.assert_array_equal(indexes, indexes_ref)


def test_auto_runs_small_inputs_too() -> None:
    before = _calls()
    with catena.using_config('use_ideep', 'auto'):
        y = F.max_pooling_2d(_distinct((1, 1, 4, 4)), 2)
    assert _delta(before)['max_pooling_2d'] == 1
    assert y.shape == (1, 1, 2, 2)


def test_non_contiguous_input() -> None:
    base = _distinct((2, 16, 10, 8))
    x = base[:, :, ::2].transpose(0, 1, 3, 2)
    assert not x.flags.c_contiguous
    y, indexes, _, _ = _run('always', x, ksize=3, stride=2, pad=1)
    y_ref, indexes_ref, _, _ = _run('never', numpy.ascontiguousarray(x), ksize=3, stride=2,
                                    pad=1)
    numpy.testing.assert_array_equal(y, y_ref)
    numpy.testing.assert_array_equal(indexes, indexes_ref)
