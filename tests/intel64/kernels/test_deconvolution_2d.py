"""oneDNN kernel of deconvolution_2d: agreement with the generic path, gradients, fallbacks."""

# ruff: noqa: NPY002

from __future__ import annotations

import collections
import gc
import itertools
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

# A deconvolution's forward is oneDNN's convolution backward-data pass; its
# input gradient is a convolution, its weight gradient Convolution2DGradW.
NAMES = ('deconvolution_2d', 'convolution_2d', 'convolution_2d_grad_w')
TOL = {'atol': 1e-4, 'rtol': 1e-4}


def _pair(value: Any) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else tuple(value)


def _calls() -> collections.Counter[str]:
    return collections.Counter({name: _primitive.calls[name] for name in NAMES})


def _delta(before: collections.Counter[str]) -> dict[str, int]:
    return {name: _primitive.calls[name] - before[name] for name in NAMES}


def _default_outsize(x_shape: Any, ksize: Any, stride: Any, pad: Any,
                     dilate: Any) -> tuple[int, ...]:
    return tuple(conv.get_deconv_outsize(size, k, s, p, False, d) for size, k, s, p, d
                 in zip(x_shape[2:], ksize, _pair(stride), _pair(pad), _pair(dilate)))


def _supported(x_shape: Any, out_hw: Any, ksize: Any, stride: Any, pad: Any,
               dilate: Any) -> bool:
    """Whether the convolution from the output back to ``x`` has no negative right padding."""
    pad_r = [(i - 1) * s + (k - 1) * d + 1 - o - p for i, o, k, s, p, d
             in zip(x_shape[2:], out_hw, ksize, _pair(stride), _pair(pad), _pair(dilate))]
    return min(pad_r) >= 0


def _inputs(x_shape: tuple[int, ...], w_shape: tuple[int, ...], nobias: bool,
            dtype: Any = numpy.float32, seed: int = 0) -> tuple[Any, ...]:
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(x_shape).astype(dtype)
    W = rng.standard_normal(w_shape).astype(dtype)
    b = None if nobias else rng.standard_normal(w_shape[1]).astype(dtype)
    return x, W, b, rng


def _deconv_run(config: str, x: numpy.ndarray, W: numpy.ndarray, b: numpy.ndarray | None,
                gy: numpy.ndarray | None, **kwargs: Any) -> tuple[Any, ...]:
    """Forward (and backward when ``gy`` is given) under ``use_ideep=config``."""
    with catena.using_config('use_ideep', config):
        xv, Wv = catena.Variable(x), catena.Variable(W)
        bv = None if b is None else catena.Variable(b)
        y = F.deconvolution_2d(xv, Wv, bv, **kwargs)
        if gy is not None:
            y.grad = gy
            y.backward()
    grads = (xv.grad, Wv.grad) + (() if bv is None else (bv.grad,))
    return (y.array,) + grads, y


def _grid() -> list[dict[str, Any]]:
    """Every stride/pad/dilate/kernel/outsize combination, cycling groups, batch and bias.

    ``outsize`` is None (the smallest output), ``'larger'`` (the largest that a
    convolution without cover_all maps back to ``x``) or ``'smaller'`` (the
    smallest that one with cover_all does).
    """
    cases = []
    product = itertools.product([1, 2, (2, 3)], [0, 1, (1, 2)], [1, 2],
                                [(1, 1), (3, 3), (3, 2)], [None, 'larger', 'smaller'])
    for i, (stride, pad, dilate, ksize, outsize) in enumerate(product):
        cases.append({'stride': stride, 'pad': pad, 'dilate': dilate, 'ksize': ksize,
                      'outsize': outsize, 'groups': (1, 2, 4)[i % 3], 'batch': (1, 3)[i % 2],
                      'nobias': bool(i // 2 % 2)})
    return cases


def _case_id(case: dict[str, Any]) -> str:
    return '-'.join(f'{key}={value}' for key, value in case.items()).replace(' ', '')


@pytest.mark.parametrize('case', _grid(), ids=_case_id)
def test_forward_and_gradients_agree_with_generic(case: dict[str, Any]) -> None:
    groups = case['groups']
    x_shape = (case['batch'], 4, 5, 7)
    w_shape = (4, 2) + case['ksize']
    stride, pad, dilate = case['stride'], case['pad'], case['dilate']
    out_hw = _default_outsize(x_shape, case['ksize'], stride, pad, dilate)
    shift = {None: 0, 'larger': 1, 'smaller': -1}[case['outsize']]
    out_hw = tuple(o + shift * (s - 1) for o, s in zip(out_hw, _pair(stride)))
    outsize = None if case['outsize'] is None else out_hw
    kwargs = {'stride': stride, 'pad': pad, 'dilate': dilate, 'groups': groups,
              'outsize': outsize}
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal(x_shape).astype(numpy.float32)
    W = rng.standard_normal(w_shape).astype(numpy.float32)
    b = None if case['nobias'] else rng.standard_normal(2 * groups).astype(numpy.float32)
    gy = rng.standard_normal((x_shape[0], 2 * groups) + out_hw).astype(numpy.float32)

    before = _calls()
    expected, _ = _deconv_run('never', x, W, b, gy, **kwargs)
    assert _delta(before) == dict.fromkeys(NAMES, 0)

    before = _calls()
    actual, y = _deconv_run('always', x, W, b, gy, **kwargs)
    assert _delta(before) == dict.fromkeys(NAMES, 1)
    assert hasattr(y.creator_node, 'implementation')
    for name, e, a in zip(('y', 'gx', 'gW', 'gb'), expected, actual):
        assert a.dtype == numpy.float32 and a.shape == e.shape, name
        numpy.testing.assert_allclose(a, e, err_msg=name, **TOL)


def test_node_names_the_onednn_implementation() -> None:
    x, W, b, _ = _inputs((2, 3, 5, 5), (3, 4, 3, 3), False)
    with catena.using_config('use_ideep', 'always'):
        y = F.deconvolution_2d(catena.Variable(x), W, b, stride=2)
    assert y.creator_node.implementation.startswith('oneDNN deconvolution_2d (')


def test_non_contiguous_inputs_agree() -> None:
    rng = numpy.random.default_rng(3)
    x = rng.standard_normal((2, 6, 5, 3)).astype(numpy.float32).transpose(0, 3, 2, 1)
    W = rng.standard_normal((3, 2, 6, 6)).astype(numpy.float32)[:, :, ::2, ::2]
    assert not x.flags.c_contiguous and not W.flags.c_contiguous
    out_hw = _default_outsize(x.shape, (3, 3), 2, 1, 1)
    gy = rng.standard_normal((2, 2) + out_hw).astype(numpy.float32)
    expected, _ = _deconv_run('never', x, W, None, gy, stride=2, pad=1)
    before = _calls()
    actual, _ = _deconv_run('always', x, W, None, gy, stride=2, pad=1)
    assert _delta(before) == dict.fromkeys(NAMES, 1)
    for e, a in zip(expected, actual):
        numpy.testing.assert_allclose(a, e, **TOL)


@pytest.mark.parametrize('outsize', [None, (10, 12)])
@pytest.mark.parametrize('nobias', [False, True])
def test_check_backward_with_onednn(nobias: bool, outsize: Any) -> None:
    x, W, _, rng = _inputs((2, 4, 5, 6), (4, 3, 3, 2), True, seed=1)
    b = rng.standard_normal(6).astype(numpy.float32)
    out_hw = outsize or _default_outsize(x.shape, (3, 2), 2, (1, 0), 1)
    gy = rng.standard_normal((2, 6) + tuple(out_hw)).astype(numpy.float32)
    args = (x, W) if nobias else (x, W, b)

    def f(*inputs: Any) -> Any:
        return F.deconvolution_2d(*inputs, stride=2, pad=(1, 0), outsize=outsize, groups=2)

    before = _calls()
    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_backward(f, args, gy, eps=1e-2, atol=1e-3, rtol=1e-3)
    assert all(count > 0 for count in _delta(before).values())


@pytest.mark.parametrize('nobias', [False, True])
def test_check_double_backward_with_onednn(nobias: bool) -> None:
    x, W, _, rng = _inputs((2, 4, 4, 5), (4, 2, 3, 3), True, seed=2)
    b = rng.standard_normal(4).astype(numpy.float32)
    out_hw = _default_outsize(x.shape, (3, 3), (2, 1), 1, (1, 2))
    gy = rng.standard_normal((2, 4) + out_hw).astype(numpy.float32)
    ggx = rng.standard_normal(x.shape).astype(numpy.float32)
    ggW = rng.standard_normal(W.shape).astype(numpy.float32)
    args, ggs = ((x, W), (ggx, ggW)) if nobias else (
        (x, W, b), (ggx, ggW, rng.standard_normal(4).astype(numpy.float32)))

    def f(*inputs: Any) -> Any:
        return F.deconvolution_2d(*inputs, stride=(2, 1), pad=1, dilate=(1, 2), groups=2)

    before = _calls()
    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_double_backward(f, args, gy, ggs, eps=1e-2, atol=5e-3,
                                             rtol=5e-3)
    assert all(count > 0 for count in _delta(before).values())


@pytest.mark.parametrize('dtype', [numpy.float64, numpy.float16])
def test_other_dtypes_fall_back(dtype: Any) -> None:
    x, W, b, rng = _inputs((2, 3, 4, 5), (3, 4, 3, 3), False, dtype=dtype)
    gy = rng.standard_normal((2, 4, 7, 9)).astype(dtype)
    expected, _ = _deconv_run('never', x, W, b, gy, stride=2, pad=1)
    before = _calls()
    actual, _ = _deconv_run('always', x, W, b, gy, stride=2, pad=1)
    assert _delta(before) == dict.fromkeys(NAMES, 0)
    for e, a in zip(expected, actual):
        assert a.dtype == dtype
        numpy.testing.assert_array_equal(a, e)


def test_negative_right_padding_runs_on_onednn() -> None:
    # Four pixels, a 3-wide kernel, stride 2, no padding: the smallest output is 9 wide;
    # outsize 10 is also mapped back to 4 pixels, but the matching convolution's last
    # window stops one pixel short of the output's border (oneDNN's right padding -1).
    x_shape, w_shape, stride = (2, 3, 4, 4), (3, 4, 3, 3), 2
    assert _default_outsize(x_shape, (3, 3), stride, 0, 1) == (9, 9)
    assert not _supported(x_shape, (10, 10), (3, 3), stride, 0, 1)
    x, W, b, rng = _inputs(x_shape, w_shape, False)
    gy = rng.standard_normal((2, 4, 10, 10)).astype(numpy.float32)
    expected, _ = _deconv_run('never', x, W, b, gy, stride=stride, outsize=(10, 10))
    before = _calls()
    actual, y = _deconv_run('always', x, W, b, gy, stride=stride, outsize=(10, 10))
    assert _delta(before) == dict.fromkeys(NAMES, 1)
    assert hasattr(y.creator_node, 'implementation')
    for e, a in zip(expected, actual):
        numpy.testing.assert_allclose(a, e, **TOL)


def test_keeps_no_reference_to_user_arrays() -> None:
    x, W, b, rng = _inputs((2, 3, 5, 5), (3, 4, 3, 3), False)
    gy = rng.standard_normal((2, 4, 11, 11)).astype(numpy.float32)
    refs = [weakref.ref(a) for a in (x, W, b, gy)]
    before = _calls()
    outputs, y = _deconv_run('always', x, W, b, gy, stride=2)
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
    x, W, b, _ = _inputs((1, 3, 4, 4), (3, 2, 3, 3), False)
    with catena.using_config('use_ideep', 'always'):
        y1 = F.deconvolution_2d(x, W, b).array
        first = y1.copy()
        y2 = F.deconvolution_2d(x * 2, W, b).array
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
    x, W, b, rng = _inputs((2, 3, 5, 4), (3, 5, 3, 3), False)
    gy = rng.standard_normal((2, 5, 9, 7)).astype(numpy.float32)
    _deconv_run('always', x, W, b, gy, stride=2, pad=1)
    assert sorted(built) == sorted(NAMES)
    assert len(_primitive._state.operations) == 3
    before = _calls()
    _deconv_run('always', x + 1, W, b, gy, stride=2, pad=1)
    assert sorted(built) == sorted(NAMES)
    assert len(_primitive._state.operations) == 3
    assert _delta(before) == dict.fromkeys(NAMES, 1)


def test_bf16_mode_agrees_within_bf16_tolerance() -> None:
    x, W, b, rng = _inputs((4, 16, 8, 8), (16, 8, 4, 4), False, seed=5)
    out_hw = _default_outsize(x.shape, (4, 4), 2, 1, 1)
    gy = rng.standard_normal((4, 8) + out_hw).astype(numpy.float32)
    expected, _ = _deconv_run('never', x, W, b, gy, stride=2, pad=1)
    # The deconvolution's geometry is that of the convolution from its output to its input.
    window = types.SimpleNamespace(sy=2, sx=2, ph=1, pw=1, dy=1, dx=1, groups=1)
    with catena.using_config('ideep_fpmath_mode', 'bf16'):
        offered = _convolution_offers.offered(
            conv_kernels.geometry(window, gy.shape, W.shape, x.shape[2:]))
    before = _calls()
    with catena.using_config('ideep_fpmath_mode', 'bf16'):
        actual, y = _deconv_run('always', x, W, b, gy, stride=2, pad=1)
    assert _delta(before) == {name: int(offered[name]) for name in NAMES}
    if offered['deconvolution_2d']:
        assert y.creator_node.implementation.startswith('oneDNN deconvolution_2d (')
    else:
        assert not hasattr(y.creator_node, 'implementation')
    for name, e, a in zip(('y', 'gx', 'gW', 'gb'), expected, actual):
        assert a.dtype == numpy.float32, name
        if not any(offered.values()):
            numpy.testing.assert_array_equal(a, e, err_msg=name)
        scale = float(numpy.abs(e).max())
        numpy.testing.assert_allclose(a, e, rtol=1e-2, atol=1e-2 * scale, err_msg=name)


def test_invalid_fpmath_mode_names_the_key() -> None:
    x, W, _, _ = _inputs((1, 3, 4, 4), (3, 2, 3, 3), True)
    with catena.using_config('use_ideep', 'always'), \
            catena.using_config('ideep_fpmath_mode', 'BF16'):
        with pytest.raises(ValueError, match='ideep_fpmath_mode'):
            F.deconvolution_2d(x, W)
