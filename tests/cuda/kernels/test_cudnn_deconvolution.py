"""cuDNN kernels of deconvolution_2d / deconvolution_nd (cuDNN's backward-data convolution).

CPU tests check the geometry against the core's deconvolution output sizes,
``outsize`` handling, declines and the graph; GPU tests compare with the
generic CuPy path (``use_cudnn='never'``).
"""

# ruff: noqa: NPY002

from __future__ import annotations

import collections
import itertools
from typing import Any

import numpy
import pytest

import catena
import catena.functions as F
from catena import gradient_check
from catena.backends import Fallback
from catena.functions.connection import (
    _conv_core,
    deconvolution_2d as deconv2d_nodes,
    deconvolution_nd as deconvnd_nodes,
)
from catena.utils import conv

catena_cuda = pytest.importorskip('catena_cuda')

from catena_cuda.kernels import _common, _cudnn  # noqa: E402
from catena_cuda.kernels.connection import (  # noqa: E402
    _cudnn_conv,
    deconvolution_2d,
    deconvolution_nd,
)

GPU = catena_cuda.available
MODULES = ('connection.convolution_2d', 'connection.deconvolution_2d',
           'connection.convolution_nd', 'connection.deconvolution_nd')
needs_cudnn = pytest.mark.skipif(
    not GPU or not catena_cuda.cudnn_enabled
    or not set(MODULES) <= set(catena_cuda.kernels.MODULES),
    reason='needs a CUDA GPU, cuDNN enabled in catena-cuda and these kernels in '
           'catena_cuda.kernels.MODULES')

NAMES = ('deconvolution_2d', 'convolution_2d', 'convolution_2d_grad_w')
ND_NAMES = ('deconvolution_nd', 'convolution_nd', 'convolution_nd_grad_w')
TOL = {numpy.float16: {'atol': 5e-2, 'rtol': 2e-2},
       numpy.float32: {'atol': 2e-4, 'rtol': 2e-4},
       numpy.float64: {'atol': 1e-10, 'rtol': 1e-10}}


def _pair(value: Any) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else tuple(value)


def _cases() -> list[dict[str, Any]]:
    """Strides, paddings, dilations, kernels, groups, batches, bias, with and without outsize."""
    cases = []
    product = itertools.product([1, 2, (2, 3)], [0, 1, (1, 2)], [1, (2, 1)],
                                [(1, 1), (3, 3), (2, 3)], [False, True])
    for i, (stride, pad, dilate, ksize, bigger) in enumerate(product):
        cases.append({'stride': stride, 'pad': pad, 'dilate': dilate, 'ksize': ksize,
                      'groups': (1, 2, 4)[i % 3], 'batch': (1, 2)[i % 2],
                      'nobias': bool(i // 2 % 2), 'bigger_outsize': bigger})
    return cases


def _case_id(case: dict[str, Any]) -> str:
    return '-'.join(f'{key}={value}' for key, value in case.items()).replace(' ', '')


def _geometry_of(case: dict[str, Any]) -> tuple[Any, ...]:
    """(x_shape, W_shape, stride, pad, dilate, outsize) of a deconvolution case."""
    groups = case['groups']
    x_shape = (case['batch'], 8, 5, 6)
    w_shape = (8, 12 // groups) + case['ksize']
    stride, pad, dilate = _pair(case['stride']), _pair(case['pad']), _pair(case['dilate'])
    outs = tuple(conv.get_deconv_outsize(size, k, s, p, False, d) for size, k, s, p, d
                 in zip(x_shape[2:], w_shape[2:], stride, pad, dilate))
    # A bigger outsize that the matching convolution still maps back to x (stride > 1).
    if case['bigger_outsize']:
        outs = tuple(o + s - 1 for o, s in zip(outs, stride))
    return x_shape, w_shape, stride, pad, dilate, outs


# ---------------------------------------------------------------------------
# CPU
# ---------------------------------------------------------------------------

@pytest.mark.parametrize('case', _cases(), ids=_case_id)
def test_dgrad_geometry_matches_the_core(case: dict[str, Any]) -> None:
    x_shape, w_shape, stride, pad, dilate, outs = _geometry_of(case)
    groups = case['groups']
    core_outs, cover_all = _conv_core.deconv_outsizes('deconvolution_2d', x_shape, w_shape,
                                                      stride, pad, outs, dilate)
    assert core_outs == outs and not cover_all
    g = _cudnn_conv.dgrad_geometry(x_shape, w_shape, stride, pad, dilate, groups, outs,
                                   numpy.float32)
    assert g is not None
    # The forward convolution it belongs to: from the output back to x.
    assert g.x_shape == (case['batch'], 12) + outs
    assert g.y_shape == x_shape and g.w_shape == w_shape
    assert (g.stride, g.pad, g.dilate, g.groups) == (stride, pad, dilate, groups)
    assert g == _cudnn_conv.fprop_geometry(g.x_shape, w_shape, stride, pad, dilate, groups,
                                           False, numpy.float32)


@pytest.mark.parametrize('size, k, s, p, outsize', [(2, 3, 2, 0, 4), (2, 3, 3, 0, 4),
                                                    (2, 3, 3, 0, 5), (3, 3, 2, 1, 4)])
def test_outsize_needing_cover_all_declines(size: int, k: int, s: int, p: int,
                                            outsize: int) -> None:
    x_shape, w_shape = (1, 2, size, size), (2, 3, k, k)
    outs, cover_all = _conv_core.deconv_outsizes('deconvolution_2d', x_shape, w_shape, (s, s),
                                                 (p, p), (outsize, outsize), (1, 1))
    assert cover_all
    assert _cudnn_conv.dgrad_geometry(x_shape, w_shape, (s, s), (p, p), (1, 1), 1, outs,
                                      numpy.float32) is None


def test_deconvolution_kernels_decline_cover_all_and_without_cudnn() -> None:
    x = numpy.zeros((1, 2, 3, 3), numpy.float32)
    W = numpy.zeros((2, 3, 3, 3), numpy.float32)
    before = collections.Counter(_common.calls)
    # cover_all is decided before anything touches a GPU.
    node = deconv2d_nodes.Deconvolution2DFunction(stride=2, pad=1, outsize=(4, 4))
    assert deconvolution_2d.deconvolution_2d(node, (x, W)) is Fallback
    nd = deconvnd_nodes.DeconvolutionND(2, stride=2, pad=1, outsize=(4, 4))
    assert deconvolution_nd.deconvolution_nd(nd, (x, W)) is Fallback
    with catena.using_config('use_cudnn', 'never'):
        plain = deconv2d_nodes.Deconvolution2DFunction(stride=2, pad=1)
        assert deconvolution_2d.deconvolution_2d(plain, (x, W)) is Fallback
        assert plain._input_indexes_to_retain is None
    assert _common.calls == before


def test_bad_outsize_raises_the_core_error() -> None:
    x = numpy.zeros((1, 2, 3, 3), numpy.float32)
    W = numpy.zeros((2, 3, 3, 3), numpy.float32)
    node = deconv2d_nodes.Deconvolution2DFunction(stride=2, pad=1, outsize=(9, 9))
    with pytest.raises(ValueError, match='does not match the input'):
        deconvolution_2d.deconvolution_2d(node, (x, W))


def test_registrations() -> None:
    assert deconvolution_2d.registrations() == [
        (deconv2d_nodes.Deconvolution2DFunction, deconvolution_2d.deconvolution_2d)]
    assert deconvolution_nd.registrations() == [
        (deconvnd_nodes.DeconvolutionND, deconvolution_nd.deconvolution_nd)]


@pytest.mark.parametrize('dtype, io', [(numpy.float16, 'HALF'), (numpy.float64, 'DOUBLE')])
def test_dgrad_graph(dtype: Any, io: str) -> None:
    cudnn = pytest.importorskip('cudnn')
    g = _cudnn_conv.dgrad_geometry((2, 6, 4, 5), (6, 2, 3, 3), (2, 2), (1, 0), (1, 1), 3,
                                   (8, 11), dtype)
    assert g is not None
    graph, tensors = _cudnn_conv.graph_maker('dgrad', g)(cudnn, None)
    node, = graph.nodes
    assert node.node_type == cudnn.NodeType.CONV_DGRAD
    assert node.inputs['loss'] is tensors['dy'] and node.inputs['filter'] is tensors['w']
    assert node.outputs['DX'] is tensors['dx']
    assert list(tensors['dy'].dim) == [2, 6, 4, 5] and list(tensors['w'].dim) == [6, 2, 3, 3]
    assert list(tensors['dx'].dim) == [2, 6, 8, 11] and tensors['dx'].dim_assigned
    assert list(tensors['dx'].stride) == [528, 88, 11, 1] and tensors['dx'].stride_assigned
    assert node.params == {'pre_padding': [1, 0], 'post_padding': [1, 0], 'stride': [2, 2],
                           'dilation': [1, 1]}
    assert all(t.data_type == getattr(cudnn.data_type, io) for t in tensors.values())


# ---------------------------------------------------------------------------
# GPU
# ---------------------------------------------------------------------------

def _calls(names: tuple[str, ...] = NAMES) -> dict[str, int]:
    return {name: _common.calls[name] for name in names}


def _delta(before: dict[str, int]) -> dict[str, int]:
    return {name: _common.calls[name] - count for name, count in before.items()}


def _run(config: str, function: Any, arrays: tuple[Any, ...], gy: Any,
         **kwargs: Any) -> list[numpy.ndarray]:
    device = catena.get_device('@cupy:0')
    with catena.using_config('use_cudnn', config):
        variables = [catena.Variable(device.send(a)) for a in arrays]
        y = function(*variables, **kwargs)
        y.grad = device.send(gy)
        y.backward()
    return [catena_cuda.to_cpu(r) for r in [y.array] + [v.grad for v in variables]]


def _assert_ran(delta: dict[str, int], count: int, dtype: Any) -> None:
    """Every kernel ran ``count`` times; for float64 each may also have declined (0 runs):
    cuDNN's graph API may have no DOUBLE engines (NVIDIA/cudnn-frontend#70)."""
    if numpy.dtype(dtype) == numpy.float64:
        assert set(delta.values()) <= {0, count}, delta
    else:
        assert delta == dict.fromkeys(delta, count), delta


def _assert_close(actual: list[Any], expected: list[Any], dtype: Any) -> None:
    for i, (a, e) in enumerate(zip(actual, expected)):
        assert a.dtype == e.dtype and a.shape == e.shape, i
        numpy.testing.assert_allclose(a, e, err_msg=f'result {i}', **TOL[dtype])


@pytest.mark.gpu
@needs_cudnn
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize('case', _cases()[::4], ids=_case_id)
def test_deconvolution_2d_agrees_with_generic(case: dict[str, Any], dtype: Any) -> None:
    x_shape, w_shape, stride, pad, dilate, outs = _geometry_of(case)
    rng = numpy.random.default_rng(0)
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    W = rng.uniform(-1, 1, w_shape).astype(dtype)
    c_out = w_shape[1] * case['groups']
    arrays = (x, W) if case['nobias'] else (x, W, rng.uniform(-1, 1, c_out).astype(dtype))
    gy = rng.uniform(-1, 1, (x_shape[0], c_out) + outs).astype(dtype)
    kwargs = {'stride': stride, 'pad': pad, 'dilate': dilate, 'groups': case['groups'],
              'outsize': outs if case['bigger_outsize'] else None}
    before = _calls()
    expected = _run('never', F.deconvolution_2d, arrays, gy, **kwargs)
    assert _delta(before) == dict.fromkeys(NAMES, 0)
    before = _calls()
    actual = _run('always', F.deconvolution_2d, arrays, gy, **kwargs)
    # The gradients: gx is a convolution, gW a convolution weight gradient.
    _assert_ran(_delta(before), 1, dtype)
    _assert_close(actual, expected, dtype)


@pytest.mark.gpu
@needs_cudnn
def test_outsize_needing_cover_all_falls_back_and_agrees() -> None:
    rng = numpy.random.default_rng(1)
    x = rng.uniform(-1, 1, (2, 2, 3, 3)).astype(numpy.float32)
    W = rng.uniform(-1, 1, (2, 3, 3, 3)).astype(numpy.float32)
    gy = rng.uniform(-1, 1, (2, 3, 4, 4)).astype(numpy.float32)
    kwargs = {'stride': 2, 'pad': 1, 'outsize': (4, 4)}
    expected = _run('never', F.deconvolution_2d, (x, W), gy, **kwargs)
    before = _calls()
    actual = _run('always', F.deconvolution_2d, (x, W), gy, **kwargs)
    # The forward and both gradients (a convolution with cover_all) change size: generic.
    assert _delta(before) == dict.fromkeys(NAMES, 0)
    _assert_close(actual, expected, numpy.float32)


@pytest.mark.gpu
@needs_cudnn
def test_check_backward_and_double_backward_with_cudnn() -> None:
    rng = numpy.random.default_rng(2)
    device = catena.get_device('@cupy:0')
    x, W, b = (rng.uniform(-1, 1, s).astype(numpy.float32)
               for s in ((2, 4, 3, 4), (4, 3, 3, 2), (6,)))
    gy = rng.uniform(-1, 1, (2, 6, 5, 7)).astype(numpy.float32)
    ggs = tuple(rng.uniform(-1, 1, a.shape).astype(numpy.float32) for a in (x, W, b))

    def f(*inputs: Any) -> Any:
        return F.deconvolution_2d(*inputs, stride=2, pad=1, outsize=(5, 7), groups=2)

    args = tuple(device.send(a) for a in (x, W, b))
    before = _calls()
    with catena.using_config('use_cudnn', 'always'):
        gradient_check.check_backward(f, args, device.send(gy), eps=1e-3, atol=1e-4,
                                      rtol=1e-3, dtype=numpy.float64)
        gradient_check.check_double_backward(f, args, device.send(gy),
                                             tuple(device.send(a) for a in ggs), eps=1e-3,
                                             atol=1e-3, rtol=1e-3, dtype=numpy.float64)
    assert all(count > 0 for count in _delta(before).values())


@pytest.mark.gpu
@needs_cudnn
def test_never_does_not_call_cudnn(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: Any, **kwargs: Any) -> None:
        raise AssertionError('cuDNN was called under use_cudnn="never"')

    monkeypatch.setattr(_cudnn, 'execute', fail)
    monkeypatch.setattr(_cudnn, 'build', fail)
    rng = numpy.random.default_rng(3)
    x = rng.uniform(-1, 1, (2, 3, 4, 4)).astype(numpy.float32)
    W = rng.uniform(-1, 1, (3, 2, 3, 3)).astype(numpy.float32)
    gy = rng.uniform(-1, 1, (2, 2, 9, 9)).astype(numpy.float32)
    before = collections.Counter(_common.calls)
    _run('never', F.deconvolution_2d, (x, W), gy, stride=2)
    _run('never', F.deconvolution_nd, (x, W), gy, stride=2)
    assert _common.calls == before


@pytest.mark.gpu
@needs_cudnn
@pytest.mark.parametrize('x_shape, w_shape, stride, pad, outsize, groups', [
    ((2, 4, 6), (4, 3, 3), 2, 1, None, 2),
    ((2, 4, 6), (4, 3, 3), 2, 1, (12,), 1),
    ((1, 2, 3, 4, 5), (2, 3, 3, 2, 3), (2, 1, 2), (1, 0, 1), None, 1),
    ((2, 4, 2, 3, 3), (4, 1, 2, 2, 2), 2, 0, (5, 7, 7), 4),
])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_deconvolution_nd_agrees_with_generic(x_shape: tuple[int, ...],
                                              w_shape: tuple[int, ...], stride: Any, pad: Any,
                                              outsize: Any, groups: int, dtype: Any) -> None:
    nd = len(x_shape) - 2
    rng = numpy.random.default_rng(4)
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    W = rng.uniform(-1, 1, w_shape).astype(dtype)
    c_out = w_shape[1] * groups
    b = rng.uniform(-1, 1, c_out).astype(dtype)
    stride_nd, pad_nd = (v if isinstance(v, tuple) else (v,) * nd for v in (stride, pad))
    outs, cover_all = _conv_core.deconv_outsizes('test', x_shape, w_shape, stride_nd, pad_nd,
                                                 outsize, (1,) * nd)
    assert not cover_all
    gy = rng.uniform(-1, 1, (x_shape[0], c_out) + outs).astype(dtype)
    kwargs = {'stride': stride, 'pad': pad, 'outsize': outsize, 'groups': groups}
    expected = _run('never', F.deconvolution_nd, (x, W, b), gy, **kwargs)
    before = _calls(ND_NAMES)
    actual = _run('always', F.deconvolution_nd, (x, W, b), gy, **kwargs)
    _assert_ran(_delta(before), 1, dtype)
    _assert_close(actual, expected, dtype)
