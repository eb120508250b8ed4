"""oneDNN kernels of convolution_2d: agreement with the generic path, gradients, fallbacks."""

# ruff: noqa: NPY002

from __future__ import annotations

import collections
import gc
import itertools
import os
import types
import weakref
from typing import Any

import numpy
import pytest

import catena
import catena.functions as F
from catena import gradient_check
from catena.utils import conv

catena_intel64 = pytest.importorskip('catena_intel64')

from tests.intel64.kernels import _convolution_offers  # noqa: E402

from catena_intel64 import _primitive  # noqa: E402
from catena_intel64.kernels.connection import (  # noqa: E402
    convolution_2d as conv_kernels,
)

pytestmark = pytest.mark.ideep

NAMES = ('convolution_2d', 'convolution_2d_grad_w', 'deconvolution_2d')
TOL = {'atol': 1e-4, 'rtol': 1e-4}


def _pair(value: Any) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else tuple(value)


def _pad_r(in_hw: Any, out_hw: Any, ksize: Any, stride: Any, pad: Any,
           dilate: Any) -> tuple[int, ...]:
    """The right padding of a convolution from ``in_hw`` to ``out_hw`` (oneDNN's view)."""
    return tuple((o - 1) * s + (k - 1) * d + 1 - i - p for i, o, k, s, p, d
                 in zip(in_hw, out_hw, ksize, _pair(stride), _pair(pad), _pair(dilate)))


def _calls() -> collections.Counter[str]:
    return collections.Counter({name: _primitive.calls[name] for name in NAMES})


def _delta(before: collections.Counter[str]) -> dict[str, int]:
    return {name: _primitive.calls[name] - before[name] for name in NAMES}


def _conv_run(config: str, x: numpy.ndarray, W: numpy.ndarray, b: numpy.ndarray | None,
              gy: numpy.ndarray | None, **kwargs: Any) -> tuple[Any, ...]:
    """Forward (and backward when ``gy`` is given) under ``use_ideep=config``."""
    with catena.using_config('use_ideep', config):
        xv, Wv = catena.Variable(x), catena.Variable(W)
        bv = None if b is None else catena.Variable(b)
        y = F.convolution_2d(xv, Wv, bv, **kwargs)
        if gy is not None:
            y.grad = gy
            y.backward()
    grads = (xv.grad, Wv.grad) + (() if bv is None else (bv.grad,))
    return (y.array,) + grads, y


def _inputs(x_shape: tuple[int, ...], w_shape: tuple[int, ...], nobias: bool,
            dtype: Any = numpy.float32, seed: int = 0) -> tuple[Any, ...]:
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(x_shape).astype(dtype)
    W = rng.standard_normal(w_shape).astype(dtype)
    b = None if nobias else rng.standard_normal(w_shape[0]).astype(dtype)
    return x, W, b, rng


def _out_hw(x_shape: Any, w_shape: Any, stride: Any, pad: Any, cover_all: bool,
            dilate: Any) -> tuple[int, int]:
    return tuple(conv.get_conv_outsize(size, k, s, p, cover_all, d) for size, k, s, p, d
                 in zip(x_shape[2:], w_shape[2:], _pair(stride), _pair(pad), _pair(dilate)))


def _grid() -> list[dict[str, Any]]:
    """Every stride/pad/cover_all/dilate/kernel combination, cycling groups, batch and bias."""
    cases = []
    product = itertools.product([1, 2, (2, 3)], [0, 1, (1, 2)], [False, True], [1, 2],
                                [(1, 1), (3, 3), (3, 2)])
    for i, (stride, pad, cover_all, dilate, ksize) in enumerate(product):
        cases.append({'stride': stride, 'pad': pad, 'cover_all': cover_all, 'dilate': dilate,
                      'ksize': ksize, 'groups': (1, 2, 4)[i % 3], 'batch': (1, 3)[i % 2],
                      'nobias': bool(i // 2 % 2)})
    return cases


def _case_id(case: dict[str, Any]) -> str:
    return '-'.join(f'{key}={value}' for key, value in case.items()).replace(' ', '')


@pytest.mark.parametrize('case', _grid(), ids=_case_id)
def test_forward_and_gradients_agree_with_generic(case: dict[str, Any]) -> None:
    groups = case['groups']
    x_shape = (case['batch'], 4, 7, 11)
    w_shape = (8, 4 // groups) + case['ksize']
    kwargs = {k: case[k] for k in ('stride', 'pad', 'cover_all', 'dilate', 'groups')}
    x, W, b, rng = _inputs(x_shape, w_shape, case['nobias'])
    out_hw = _out_hw(x_shape, w_shape, case['stride'], case['pad'], case['cover_all'],
                     case['dilate'])
    gy = rng.standard_normal((x_shape[0], 8) + out_hw).astype(numpy.float32)

    before = _calls()
    expected, _ = _conv_run('never', x, W, b, gy, **kwargs)
    assert _delta(before) == dict.fromkeys(NAMES, 0)

    before = _calls()
    actual, y = _conv_run('always', x, W, b, gy, **kwargs)
    assert _delta(before) == dict.fromkeys(NAMES, 1)
    assert hasattr(y.creator_node, 'implementation')
    for name, e, a in zip(('y', 'gx', 'gW', 'gb'), expected, actual):
        assert a.dtype == numpy.float32 and a.shape == e.shape, name
        numpy.testing.assert_allclose(a, e, err_msg=name, **TOL)


def test_node_names_the_onednn_implementation() -> None:
    x, W, b, _ = _inputs((2, 3, 9, 9), (4, 3, 3, 3), False)
    x = catena.Variable(x)
    with catena.using_config('use_ideep', 'always'):
        y = F.convolution_2d(x, W, b, pad=1)
    assert y.creator_node.implementation.startswith('oneDNN convolution_2d (')
    with catena.using_config('use_ideep', 'never'):
        y = F.convolution_2d(x, W, b, pad=1)
    assert not hasattr(y.creator_node, 'implementation')


def test_non_contiguous_inputs_agree() -> None:
    rng = numpy.random.default_rng(3)
    x = rng.standard_normal((2, 9, 7, 3)).astype(numpy.float32).transpose(0, 3, 2, 1)
    W = rng.standard_normal((3, 3, 4, 5)).astype(numpy.float32)[:, :, ::2, ::2]
    assert not x.flags.c_contiguous and not W.flags.c_contiguous
    gy = rng.standard_normal((2, 3) + _out_hw(x.shape, W.shape, 1, 1, False, 1)).astype(
        numpy.float32)
    expected, _ = _conv_run('never', x, W, None, gy, pad=1)
    before = _calls()
    actual, _ = _conv_run('always', x, W, None, gy, pad=1)
    assert _delta(before) == dict.fromkeys(NAMES, 1)
    for e, a in zip(expected, actual):
        numpy.testing.assert_allclose(a, e, **TOL)


@pytest.mark.parametrize('nobias', [False, True])
def test_check_backward_with_onednn(nobias: bool) -> None:
    x, W, b, rng = _inputs((2, 4, 5, 6), (6, 2, 3, 2), nobias, seed=1)
    gy = rng.standard_normal((2, 6, 3, 4)).astype(numpy.float32)
    args = (x, W) if nobias else (x, W, b)

    def f(*inputs: Any) -> Any:
        return F.convolution_2d(*inputs, stride=2, pad=1, groups=2)

    before = _calls()
    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_backward(f, args, gy, eps=1e-2, atol=1e-3, rtol=1e-3)
    assert all(count > 0 for count in _delta(before).values())


@pytest.mark.parametrize('nobias', [False, True])
def test_check_double_backward_with_onednn(nobias: bool) -> None:
    x, W, b, rng = _inputs((2, 4, 6, 5), (4, 2, 3, 3), nobias, seed=2)
    gy = rng.standard_normal((2, 4, 6, 3)).astype(numpy.float32)
    ggx = rng.standard_normal(x.shape).astype(numpy.float32)
    ggW = rng.standard_normal(W.shape).astype(numpy.float32)
    args, ggs = ((x, W), (ggx, ggW)) if nobias else (
        (x, W, b), (ggx, ggW, rng.standard_normal(b.shape).astype(numpy.float32)))

    def f(*inputs: Any) -> Any:
        return F.convolution_2d(*inputs, pad=1, dilate=(1, 2), groups=2)

    before = _calls()
    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_double_backward(f, args, gy, ggs, eps=1e-2, atol=5e-3,
                                             rtol=5e-3)
    assert all(count > 0 for count in _delta(before).values())


@pytest.mark.parametrize('dtype', [numpy.float64, numpy.float16])
def test_other_dtypes_fall_back(dtype: Any) -> None:
    x, W, b, rng = _inputs((2, 3, 7, 8), (4, 3, 3, 3), False, dtype=dtype)
    gy = rng.standard_normal((2, 4, 4, 4)).astype(dtype)
    expected, _ = _conv_run('never', x, W, b, gy, stride=2, pad=1)
    before = _calls()
    actual, y = _conv_run('always', x, W, b, gy, stride=2, pad=1)
    assert _delta(before) == dict.fromkeys(NAMES, 0)
    for e, a in zip(expected, actual):
        assert a.dtype == dtype
        numpy.testing.assert_array_equal(a, e)


@pytest.mark.parametrize('W_dtype', [numpy.float16, numpy.float64])
def test_weight_of_another_dtype(W_dtype: Any) -> None:
    # The forward and the input gradient (a deconvolution) fall back; the weight
    # gradient reads the float32 x and gy, runs on oneDNN and is cast to W's dtype.
    x, W, b, rng = _inputs((2, 3, 7, 8), (4, 3, 3, 3), False)
    W = W.astype(W_dtype)
    gy = rng.standard_normal((2, 4, 4, 4)).astype(numpy.float32)
    expected, _ = _conv_run('never', x, W, b, gy, stride=2, pad=1)
    before = _calls()
    actual, _ = _conv_run('always', x, W, b, gy, stride=2, pad=1)
    assert _delta(before) == {'convolution_2d': 0, 'convolution_2d_grad_w': 1,
                              'deconvolution_2d': 0}
    for e, a, dtype in zip(expected, actual, (x.dtype, x.dtype, W_dtype, b.dtype)):
        assert a.dtype == e.dtype == dtype
        numpy.testing.assert_allclose(a, e, **TOL)


def test_negative_right_padding_runs_on_onednn() -> None:
    # Seven pixels, a 3-wide kernel, stride 4 and pad 1 give two windows (at -1 and 3)
    # whose last one ends one pixel before the padded border: oneDNN's right padding
    # is -1 (as in ResNet's 1x1 stride-2 shortcuts on even sizes).
    x_shape, w_shape, stride, pad = (2, 3, 7, 7), (4, 3, 3, 3), 4, 1
    out_hw = _out_hw(x_shape, w_shape, stride, pad, False, 1)
    assert _pad_r(x_shape[2:], out_hw, w_shape[2:], stride, pad, 1) == (-1, -1)
    x, W, b, rng = _inputs(x_shape, w_shape, False)
    gy = rng.standard_normal((2, 4) + out_hw).astype(numpy.float32)
    expected, _ = _conv_run('never', x, W, b, gy, stride=stride, pad=pad)
    before = _calls()
    actual, y = _conv_run('always', x, W, b, gy, stride=stride, pad=pad)
    assert _delta(before) == dict.fromkeys(NAMES, 1)
    assert hasattr(y.creator_node, 'implementation')
    for e, a in zip(expected, actual):
        numpy.testing.assert_allclose(a, e, **TOL)


def test_keeps_no_reference_to_user_arrays() -> None:
    x, W, b, rng = _inputs((2, 3, 8, 8), (4, 3, 3, 3), False)
    gy = rng.standard_normal((2, 4, 8, 8)).astype(numpy.float32)
    refs = [weakref.ref(a) for a in (x, W, b, gy)]
    before = _calls()
    outputs, y = _conv_run('always', x, W, b, gy, pad=1)
    assert _delta(before) == dict.fromkeys(NAMES, 1)
    for array in outputs:
        assert type(array) is numpy.ndarray
        assert array.dtype == numpy.float32 and array.flags.c_contiguous
    out_refs = [weakref.ref(a) for a in outputs]
    del x, W, b, gy, outputs, y, array
    gc.collect()
    assert all(ref() is None for ref in refs)
    assert all(ref() is None for ref in out_refs)


def test_outputs_are_fresh_arrays_at_each_call() -> None:
    x, W, b, _ = _inputs((1, 3, 6, 6), (2, 3, 3, 3), False)
    with catena.using_config('use_ideep', 'always'):
        y1 = F.convolution_2d(x, W, b).array
        first = y1.copy()
        y2 = F.convolution_2d(x * 2, W, b).array
    assert not numpy.shares_memory(y1, y2)
    numpy.testing.assert_array_equal(y1, first)


def test_same_shapes_build_each_primitive_once(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    original = _primitive.Operation.__init__

    def counting_init(self: Any, name: str, *args: Any, **kwargs: Any) -> None:
        built.append(name)
        original(self, name, *args, **kwargs)

    monkeypatch.setattr(_primitive.Operation, '__init__', counting_init)
    _primitive.clear_cache()
    x, W, b, rng = _inputs((2, 3, 10, 9), (5, 3, 3, 3), False)
    gy = rng.standard_normal((2, 5, 5, 5)).astype(numpy.float32)
    _conv_run('always', x, W, b, gy, stride=2, pad=1)
    assert sorted(built) == sorted(NAMES)
    entries = len(_primitive._state.operations)
    assert entries == 3
    before = _calls()
    _conv_run('always', x + 1, W, b, gy, stride=2, pad=1)
    assert sorted(built) == sorted(NAMES)
    assert len(_primitive._state.operations) == entries
    assert _delta(before) == dict.fromkeys(NAMES, 1)
    # Another batch size is another primitive.
    _conv_run('always', x[:1], W, b, gy[:1], stride=2, pad=1)
    assert len(built) == 6
    assert len(_primitive._state.operations) == 6


# ---------------------------------------------------------------------------
# bfloat16 compute (catena.config.ideep_fpmath_mode)
# ---------------------------------------------------------------------------

def test_fpmath_mode_defaults_to_strict() -> None:
    expected = os.environ.get('CATENA_IDEEP_FPMATH_MODE', 'strict')
    assert catena.config.ideep_fpmath_mode == expected


def test_invalid_fpmath_mode_names_the_key() -> None:
    x, W, _, _ = _inputs((1, 3, 6, 6), (2, 3, 3, 3), True)
    with catena.using_config('use_ideep', 'always'), \
            catena.using_config('ideep_fpmath_mode', 'fast'):
        with pytest.raises(ValueError, match='ideep_fpmath_mode'):
            F.convolution_2d(x, W)


def test_bf16_mode_agrees_within_bf16_tolerance() -> None:
    x, W, b, rng = _inputs((4, 16, 12, 12), (32, 16, 3, 3), False, seed=5)
    gy = rng.standard_normal((4, 32, 12, 12)).astype(numpy.float32)
    expected, _ = _conv_run('never', x, W, b, gy, pad=1)
    window = types.SimpleNamespace(sy=1, sx=1, ph=1, pw=1, dy=1, dx=1, groups=1)
    with catena.using_config('ideep_fpmath_mode', 'bf16'):
        offered = _convolution_offers.offered(
            conv_kernels.geometry(window, x.shape, W.shape, gy.shape[2:]))
    before = _calls()
    with catena.using_config('ideep_fpmath_mode', 'bf16'):
        actual, y = _conv_run('always', x, W, b, gy, pad=1)
    assert _delta(before) == {name: int(offered[name]) for name in NAMES}
    if offered['convolution_2d']:
        assert y.creator_node.implementation.startswith('oneDNN convolution_2d (')
    else:
        assert not hasattr(y.creator_node, 'implementation')
    for name, e, a in zip(('y', 'gx', 'gW', 'gb'), expected, actual):
        assert a.dtype == numpy.float32, name
        if not any(offered.values()):
            numpy.testing.assert_array_equal(a, e, err_msg=name)
        scale = float(numpy.abs(e).max())
        numpy.testing.assert_allclose(a, e, rtol=1e-2, atol=1e-2 * scale, err_msg=name)
