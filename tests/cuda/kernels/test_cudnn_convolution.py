"""cuDNN kernels of convolution_2d / convolution_nd: parameters, declines, graphs, results.

CPU tests check how Chainer's parameters become a cuDNN geometry (against the
core's own output-size helpers), what declines, and (with the cuDNN frontend
installed) the graphs. GPU tests compare every result with the generic CuPy
path (``use_cudnn='never'``).
"""

# ruff: noqa: NPY002

from __future__ import annotations

import collections
import contextlib
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
    convolution_2d as conv2d_nodes,
    convolution_nd as convnd_nodes,
)
from catena.utils import conv

catena_cuda = pytest.importorskip('catena_cuda')

from catena_cuda.kernels import _common, _cudnn  # noqa: E402
from catena_cuda.kernels.connection import (  # noqa: E402
    _cudnn_conv,
    convolution_2d,
    convolution_nd,
)

GPU = catena_cuda.available
MODULES = ('connection.convolution_2d', 'connection.deconvolution_2d',
           'connection.convolution_nd', 'connection.deconvolution_nd')
needs_cudnn = pytest.mark.skipif(
    not GPU or not catena_cuda.cudnn_enabled
    or not set(MODULES) <= set(catena_cuda.kernels.MODULES),
    reason='needs a CUDA GPU, cuDNN enabled in catena-cuda and these kernels in '
           'catena_cuda.kernels.MODULES')

NAMES = ('convolution_2d', 'convolution_2d_grad_w', 'deconvolution_2d')
ND_NAMES = ('convolution_nd', 'convolution_nd_grad_w', 'deconvolution_nd')
TOL = {numpy.float16: {'atol': 5e-2, 'rtol': 2e-2},
       numpy.float32: {'atol': 2e-4, 'rtol': 2e-4},
       numpy.float64: {'atol': 1e-10, 'rtol': 1e-10}}


def _pair(value: Any) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else tuple(value)


def _cases() -> list[dict[str, Any]]:
    """Strides, paddings, dilations, kernels, groups, odd sizes and batches, bias or not."""
    cases = []
    product = itertools.product([1, 2, (2, 3)], [0, 1, (1, 2)], [1, 2, (2, 1)],
                                [(1, 1), (3, 3), (3, 2)])
    for i, (stride, pad, dilate, ksize) in enumerate(product):
        cases.append({'stride': stride, 'pad': pad, 'dilate': dilate, 'ksize': ksize,
                      'groups': (1, 2, 4)[i % 3], 'batch': (1, 3)[i % 2],
                      'nobias': bool(i // 2 % 2)})
    return cases


def _case_id(case: dict[str, Any]) -> str:
    return '-'.join(f'{key}={value}' for key, value in case.items()).replace(' ', '')


# ---------------------------------------------------------------------------
# CPU: parameter translation and declines
# ---------------------------------------------------------------------------

@pytest.mark.parametrize('case', _cases(), ids=_case_id)
def test_fprop_geometry_matches_the_core(case: dict[str, Any]) -> None:
    groups = case['groups']
    x_shape = (case['batch'], 8, 11, 13)
    w_shape = (12, 8 // groups) + case['ksize']
    stride, pad, dilate = _pair(case['stride']), _pair(case['pad']), _pair(case['dilate'])
    g = _cudnn_conv.fprop_geometry(x_shape, w_shape, stride, pad, dilate, groups, False,
                                   numpy.float32)
    assert g is not None
    outs = _conv_core.conv_outsizes('convolution_2d', x_shape, w_shape, stride, pad, False,
                                    dilate)
    assert g == _cudnn_conv.ConvGeometry(x_shape, w_shape, (case['batch'], 12) + outs, stride,
                                         pad, dilate, groups, 'float32', False)
    # cuDNN's output size is the core's floor formula, axis by axis.
    for size, k, s, p, d, out in zip(x_shape[2:], w_shape[2:], stride, pad, dilate, outs):
        assert out == (size + 2 * p - ((k - 1) * d + 1)) // s + 1
        assert out == conv.get_conv_outsize(size, k, s, p, False, d)


@pytest.mark.parametrize('size, k, s, p', [(7, 3, 2, 1), (8, 3, 2, 1), (6, 2, 2, 0),
                                           (9, 3, 3, 0), (10, 3, 3, 1)])
def test_cover_all_declines_only_when_it_changes_the_size(size: int, k: int, s: int,
                                                          p: int) -> None:
    x_shape, w_shape = (2, 3, size, size), (4, 3, k, k)
    g = _cudnn_conv.fprop_geometry(x_shape, w_shape, (s, s), (p, p), (1, 1), 1, True,
                                   numpy.float32)
    changes = (conv.get_conv_outsize(size, k, s, p, True)
               != conv.get_conv_outsize(size, k, s, p, False))
    assert (g is None) == changes
    if g is not None:
        assert g == _cudnn_conv.fprop_geometry(x_shape, w_shape, (s, s), (p, p), (1, 1), 1,
                                               False, numpy.float32)


def test_one_and_three_spatial_axes() -> None:
    g1 = _cudnn_conv.fprop_geometry((2, 4, 9), (6, 2, 3), (2,), (1,), (2,), 2, False,
                                    numpy.float16)
    assert g1 == _cudnn_conv.ConvGeometry((2, 4, 9, 1), (6, 2, 3, 1), (2, 6, 4, 1), (2, 1),
                                          (1, 0), (2, 1), 2, 'float16', True)
    g3 = _cudnn_conv.fprop_geometry((1, 3, 5, 6, 7), (4, 3, 3, 2, 1), (1, 2, 1), (1, 0, 0),
                                    (1, 1, 1), 1, False, numpy.float64)
    assert g3 is not None and g3.y_shape == (1, 4, 5, 3, 7) and not g3.lifted
    assert _cudnn_conv.fprop_geometry((1, 3, 5, 5, 5, 5), (4, 3, 1, 1, 1, 1), (1,) * 4,
                                      (0,) * 4, (1,) * 4, 1, False, numpy.float32) is None


@pytest.mark.parametrize('x_shape, w_shape, groups, dtype', [
    ((2, 4, 5, 5), (6, 4, 3, 3), 1, numpy.int32),      # no cuDNN dtype here
    ((2, 4, 5, 5), (6, 3, 3, 3), 1, numpy.float32),    # channels do not match
    ((2, 4, 5, 5), (6, 2, 3, 3), 4, numpy.float32),    # groups do not match
    ((2, 4, 5, 5), (5, 2, 3, 3), 2, numpy.float32),    # groups do not divide c_out
    ((0, 4, 5, 5), (6, 4, 3, 3), 1, numpy.float32),    # an empty batch
    ((2, 4, 5, 5), (6, 4, 7, 7), 1, numpy.float32),    # no output
])
def test_geometries_that_decline(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                                 groups: int, dtype: Any) -> None:
    assert _cudnn_conv.fprop_geometry(x_shape, w_shape, (1, 1), (0, 0), (1, 1), groups,
                                      False, dtype) is None


@pytest.mark.parametrize('case', _cases()[::5], ids=_case_id)
def test_wgrad_geometry_is_the_forward_one(case: dict[str, Any]) -> None:
    groups = case['groups']
    x_shape = (case['batch'], 8, 11, 13)
    w_shape = (12, 8 // groups) + case['ksize']
    stride, pad, dilate = _pair(case['stride']), _pair(case['pad']), _pair(case['dilate'])
    fprop = _cudnn_conv.fprop_geometry(x_shape, w_shape, stride, pad, dilate, groups, False,
                                       numpy.float32)
    assert fprop is not None
    wgrad = _cudnn_conv.wgrad_geometry(x_shape, fprop.y_shape, case['ksize'], stride, pad,
                                       dilate, groups, numpy.float32)
    assert wgrad == fprop
    # A gradient whose size needs cover_all (one more window) declines.
    bigger = fprop.y_shape[:2] + (fprop.y_shape[2] + 1, fprop.y_shape[3])
    assert _cudnn_conv.wgrad_geometry(x_shape, bigger, case['ksize'], stride, pad, dilate,
                                      groups, numpy.float32) is None


def test_geometry_keys_differ_with_parameters() -> None:
    args = ((2, 4, 9, 9), (4, 4, 3, 3), (1, 1), (1, 1), (1, 1), 1, False, numpy.float32)
    base = _cudnn_conv.fprop_geometry(*args)
    policy = _cudnn.PlanPolicy(False, False, False, 1 << 20)
    key = _cudnn.plan_key('conv_fprop', base, policy, 0)
    changed = [
        _cudnn_conv.fprop_geometry((2, 4, 9, 9), (4, 4, 3, 3), (2, 1), (1, 1), (1, 1), 1, False,
                                   numpy.float32),
        _cudnn_conv.fprop_geometry((2, 4, 9, 9), (4, 4, 3, 3), (1, 1), (0, 1), (1, 1), 1, False,
                                   numpy.float32),
        _cudnn_conv.fprop_geometry((2, 4, 9, 9), (4, 4, 3, 3), (1, 1), (1, 1), (2, 1), 1, False,
                                   numpy.float32),
        _cudnn_conv.fprop_geometry((2, 4, 9, 9), (4, 2, 3, 3), (1, 1), (1, 1), (1, 1), 2, False,
                                   numpy.float32),
        _cudnn_conv.fprop_geometry(*args[:-1], numpy.float16),
    ]
    keys = {_cudnn.plan_key('conv_fprop', g, policy, 0) for g in changed}
    assert key not in keys and len(keys) == len(changed)
    assert key == _cudnn.plan_key('conv_fprop', _cudnn_conv.fprop_geometry(*args), policy, 0)


def test_registrations() -> None:
    assert convolution_2d.registrations() == [
        (conv2d_nodes.Convolution2DFunction, convolution_2d.convolution_2d),
        (conv2d_nodes.Convolution2DGradW, convolution_2d.convolution_2d_grad_w)]
    assert convolution_nd.registrations() == [
        (convnd_nodes.ConvolutionND, convolution_nd.convolution_nd),
        (convnd_nodes.ConvolutionNDGradW, convolution_nd.convolution_nd_grad_w)]
    assert convolution_2d.CONFIG_KEY == convolution_nd.CONFIG_KEY == 'use_cudnn'


def test_kernels_decline_without_cudnn() -> None:
    x = numpy.zeros((1, 2, 5, 5), numpy.float32)
    W = numpy.zeros((3, 2, 3, 3), numpy.float32)
    gy = numpy.zeros((1, 3, 3, 3), numpy.float32)
    before = collections.Counter(_common.calls)
    with catena.using_config('use_cudnn', 'never'):
        node = conv2d_nodes.Convolution2DFunction()
        assert convolution_2d.convolution_2d(node, (x, W)) is Fallback
        assert node._input_indexes_to_retain is None
        grad_w = conv2d_nodes.Convolution2DGradW(node, W.shape)
        assert convolution_2d.convolution_2d_grad_w(grad_w, (x, gy)) is Fallback
        nd = convnd_nodes.ConvolutionND(2)
        assert convolution_nd.convolution_nd(nd, (x, W)) is Fallback
    assert _common.calls == before


# ---------------------------------------------------------------------------
# CPU (with the frontend): the graphs
# ---------------------------------------------------------------------------

@pytest.mark.parametrize('dtype, io, compute', [(numpy.float16, 'HALF', 'FLOAT'),
                                                (numpy.float32, 'FLOAT', 'FLOAT'),
                                                (numpy.float64, 'DOUBLE', 'DOUBLE')])
def test_fprop_graph(dtype: Any, io: str, compute: str) -> None:
    cudnn = pytest.importorskip('cudnn')
    g = _cudnn_conv.fprop_geometry((2, 4, 7, 9), (6, 2, 3, 3), (2, 1), (1, 2), (1, 2), 2, False,
                                   dtype)
    graph, tensors = _cudnn_conv.graph_maker('fprop', g)(cudnn, None)
    assert set(tensors) == {'x', 'w', 'y'}
    node, = graph.nodes
    assert node.node_type == cudnn.NodeType.CONV_FPROP
    assert node.compute_data_type == getattr(cudnn.data_type, compute)
    assert node.params == {'pre_padding': [1, 2], 'post_padding': [1, 2], 'stride': [2, 1],
                           'dilation': [1, 2]}
    assert node.inputs['image'] is tensors['x'] and node.inputs['weight'] is tensors['w']
    assert node.outputs['Y'] is tensors['y']
    expect = {'x': ([2, 4, 7, 9], [252, 63, 9, 1]), 'w': ([6, 2, 3, 3], [18, 9, 3, 1]),
              'y': ([2, 6, 4, 9], [216, 36, 9, 1])}
    for name, (dim, stride) in expect.items():
        t = tensors[name]
        assert (list(t.dim), list(t.stride)) == (dim, stride), name
        assert t.data_type == getattr(cudnn.data_type, io) and not t.is_virtual
    assert len({t.uid for t in tensors.values()}) == 3


def test_wgrad_and_lifted_graphs() -> None:
    cudnn = pytest.importorskip('cudnn')
    g = _cudnn_conv.wgrad_geometry((3, 4, 10), (3, 8, 4), (3,), (3,), (2,), (1,), 2,
                                   numpy.float32)
    assert g is not None and g.lifted
    graph, tensors = _cudnn_conv.graph_maker('wgrad', g)(cudnn, None)
    node, = graph.nodes
    assert node.node_type == cudnn.NodeType.CONV_WGRAD
    assert node.inputs['image'] is tensors['x'] and node.inputs['loss'] is tensors['dy']
    assert list(tensors['x'].dim) == [3, 4, 10, 1]
    assert list(tensors['dy'].dim) == [3, 8, 4, 1]
    assert list(tensors['dw'].dim) == [8, 2, 3, 1] and tensors['dw'].dim_assigned
    assert list(tensors['dw'].stride) == [6, 3, 1, 1]
    assert node.params['stride'] == [3, 1] and node.params['pre_padding'] == [2, 0]


# ---------------------------------------------------------------------------
# GPU
# ---------------------------------------------------------------------------

def _calls(names: tuple[str, ...] = NAMES) -> dict[str, int]:
    return {name: _common.calls[name] for name in names}


def _delta(before: dict[str, int]) -> dict[str, int]:
    return {name: _common.calls[name] - count for name, count in before.items()}


def _inputs(x_shape: tuple[int, ...], w_shape: tuple[int, ...], nobias: bool, dtype: Any,
            seed: int = 0) -> tuple[Any, ...]:
    rng = numpy.random.default_rng(seed)
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    W = rng.uniform(-1, 1, w_shape).astype(dtype)
    b = None if nobias else rng.uniform(-1, 1, w_shape[0]).astype(dtype)
    return x, W, b, rng


def _run(config: str, function: Any, arrays: tuple[Any, ...], gy: Any,
         **kwargs: Any) -> list[numpy.ndarray]:
    """The output and every input gradient, under ``use_cudnn=config``, as NumPy arrays."""
    device = catena.get_device('@cupy:0')
    with catena.using_config('use_cudnn', config):
        variables = [None if a is None else catena.Variable(device.send(a)) for a in arrays]
        y = function(*variables, **kwargs)
        y.grad = device.send(gy)
        y.backward()
    results = [y.array] + [v.grad for v in variables if v is not None]
    return [catena_cuda.to_cpu(r) for r in results]


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
@pytest.mark.parametrize('case', _cases()[::3], ids=_case_id)
def test_convolution_2d_agrees_with_generic(case: dict[str, Any], dtype: Any) -> None:
    groups = case['groups']
    x_shape = (case['batch'], 4, 7, 11)
    w_shape = (8, 4 // groups) + case['ksize']
    kwargs = {k: case[k] for k in ('stride', 'pad', 'dilate', 'groups')}
    x, W, b, rng = _inputs(x_shape, w_shape, case['nobias'], dtype)
    outs = _conv_core.conv_outsizes('test', x_shape, w_shape, _pair(case['stride']),
                                    _pair(case['pad']), False, _pair(case['dilate']))
    gy = rng.uniform(-1, 1, (x_shape[0], 8) + outs).astype(dtype)
    args = (x, W) if b is None else (x, W, b)
    before = _calls()
    expected = _run('never', F.convolution_2d, args, gy, **kwargs)
    assert _delta(before) == dict.fromkeys(NAMES, 0)
    before = _calls()
    actual = _run('always', F.convolution_2d, args, gy, **kwargs)
    _assert_ran(_delta(before), 1, dtype)
    _assert_close(actual, expected, dtype)


@pytest.mark.gpu
@needs_cudnn
def test_non_contiguous_inputs_agree() -> None:
    cupy = catena_cuda.cupy
    rng = numpy.random.default_rng(3)
    x = cupy.asarray(rng.uniform(-1, 1, (2, 9, 7, 3)).astype(numpy.float32)).transpose(0, 3, 2, 1)
    W = cupy.asarray(rng.uniform(-1, 1, (3, 3, 4, 5)).astype(numpy.float32))[:, :, ::2, ::2]
    assert not x.flags.c_contiguous and not W.flags.c_contiguous
    gy = cupy.asarray(rng.uniform(-1, 1, (2, 3, 8, 9)).astype(numpy.float32))
    results = {}
    for config in ('never', 'always'):
        before = _calls()
        with catena.using_config('use_cudnn', config):
            xv, Wv = catena.Variable(x), catena.Variable(W)
            y = F.convolution_2d(xv, Wv, pad=1)
            y.grad = gy
            y.backward()
        assert _delta(before) == dict.fromkeys(NAMES, int(config == 'always'))
        results[config] = [catena_cuda.to_cpu(a) for a in (y.array, xv.grad, Wv.grad)]
    _assert_close(results['always'], results['never'], numpy.float32)


@pytest.mark.gpu
@needs_cudnn
def test_cover_all_that_changes_the_size_falls_back() -> None:
    x, W, b, rng = _inputs((2, 3, 8, 8), (4, 3, 3, 3), False, numpy.float32)
    # Eight pixels, stride 2, pad 1: cover_all adds a fifth window.
    gy = rng.uniform(-1, 1, (2, 4, 5, 5)).astype(numpy.float32)
    expected = _run('never', F.convolution_2d, (x, W, b), gy, stride=2, pad=1, cover_all=True)
    before = _calls()
    actual = _run('always', F.convolution_2d, (x, W, b), gy, stride=2, pad=1, cover_all=True)
    assert _delta(before) == dict.fromkeys(NAMES, 0)
    _assert_close(actual, expected, numpy.float32)
    # With seven pixels cover_all changes nothing, and cuDNN runs.
    x7 = x[:, :, :7, :7].copy()
    gy7 = gy[:, :, :4, :4].copy()
    expected = _run('never', F.convolution_2d, (x7, W, b), gy7, stride=2, pad=1,
                    cover_all=True)
    before = _calls()
    actual = _run('always', F.convolution_2d, (x7, W, b), gy7, stride=2, pad=1, cover_all=True)
    assert _delta(before) == dict.fromkeys(NAMES, 1)
    _assert_close(actual, expected, numpy.float32)


@pytest.mark.gpu
@needs_cudnn
@pytest.mark.parametrize('nobias', [False, True])
def test_check_backward_with_cudnn(nobias: bool) -> None:
    x, W, b, rng = _inputs((2, 4, 5, 6), (6, 2, 3, 2), nobias, numpy.float32, seed=1)
    gy = rng.uniform(-1, 1, (2, 6, 3, 4)).astype(numpy.float32)
    device = catena.get_device('@cupy:0')
    args = tuple(device.send(a) for a in ((x, W) if nobias else (x, W, b)))

    def f(*inputs: Any) -> Any:
        return F.convolution_2d(*inputs, stride=2, pad=1, groups=2)

    before = _calls()
    with catena.using_config('use_cudnn', 'always'):
        gradient_check.check_backward(f, args, device.send(gy), eps=1e-3, atol=1e-4,
                                      rtol=1e-3, dtype=numpy.float64)
    assert all(count > 0 for count in _delta(before).values())


@pytest.mark.gpu
@needs_cudnn
def test_check_double_backward_with_cudnn() -> None:
    x, W, b, rng = _inputs((2, 4, 6, 5), (4, 2, 3, 3), False, numpy.float32, seed=2)
    gy = rng.uniform(-1, 1, (2, 4, 6, 3)).astype(numpy.float32)
    ggs = tuple(rng.uniform(-1, 1, a.shape).astype(numpy.float32) for a in (x, W, b))
    device = catena.get_device('@cupy:0')

    def f(*inputs: Any) -> Any:
        return F.convolution_2d(*inputs, pad=1, dilate=(1, 2), groups=2)

    before = _calls()
    with catena.using_config('use_cudnn', 'always'):
        gradient_check.check_double_backward(
            f, tuple(device.send(a) for a in (x, W, b)), device.send(gy),
            tuple(device.send(a) for a in ggs), eps=1e-3, atol=1e-3, rtol=1e-3,
            dtype=numpy.float64)
    assert all(count > 0 for count in _delta(before).values())


@pytest.mark.gpu
@needs_cudnn
def test_never_does_not_call_cudnn(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: Any, **kwargs: Any) -> None:
        raise AssertionError('cuDNN was called under use_cudnn="never"')

    monkeypatch.setattr(_cudnn, 'execute', fail)
    monkeypatch.setattr(_cudnn, 'build', fail)
    x, W, b, rng = _inputs((2, 3, 6, 6), (4, 3, 3, 3), False, numpy.float32)
    gy = rng.uniform(-1, 1, (2, 4, 6, 6)).astype(numpy.float32)
    before = collections.Counter(_common.calls)
    _run('never', F.convolution_2d, (x, W, b), gy, pad=1)
    _run('never', F.convolution_nd, (x, W, b), gy, pad=1)
    assert _common.calls == before


@pytest.mark.gpu
@needs_cudnn
@pytest.mark.parametrize('x_shape, w_shape, stride, pad, dilate, groups', [
    ((2, 4, 11), (6, 2, 3), 2, 1, 1, 2),
    ((1, 3, 9), (2, 3, 1), 1, 0, 1, 1),
    ((2, 2, 5, 6, 7), (4, 2, 3, 2, 3), (1, 2, 1), (1, 0, 1), (1, 1, 2), 1),
    ((1, 4, 4, 5, 6), (4, 1, 1, 3, 3), 1, 1, 1, 4),
])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_convolution_nd_agrees_with_generic(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                                            stride: Any, pad: Any, dilate: Any, groups: int,
                                            dtype: Any) -> None:
    nd = len(x_shape) - 2
    x, W, b, rng = _inputs(x_shape, w_shape, False, dtype)
    stride_nd, pad_nd, dilate_nd = (v if isinstance(v, tuple) else (v,) * nd
                                    for v in (stride, pad, dilate))
    outs = _conv_core.conv_outsizes('test', x_shape, w_shape, stride_nd, pad_nd, False,
                                    dilate_nd)
    gy = rng.uniform(-1, 1, (x_shape[0], w_shape[0]) + outs).astype(dtype)
    kwargs = {'stride': stride, 'pad': pad, 'dilate': dilate, 'groups': groups}
    expected = _run('never', F.convolution_nd, (x, W, b), gy, **kwargs)
    before = _calls(ND_NAMES)
    actual = _run('always', F.convolution_nd, (x, W, b), gy, **kwargs)
    _assert_ran(_delta(before), 1, dtype)
    _assert_close(actual, expected, dtype)


@pytest.mark.gpu
@needs_cudnn
@pytest.mark.parametrize('setting', ['autotune', 'cudnn_deterministic', 'no_tensor_core',
                                     'no_workspace'])
def test_plan_policies_agree_with_generic(setting: str) -> None:
    x, W, b, rng = _inputs((4, 8, 9, 10), (16, 8, 3, 3), False, numpy.float32, seed=5)
    gy = rng.uniform(-1, 1, (4, 16, 5, 5)).astype(numpy.float32)
    expected = _run('never', F.convolution_2d, (x, W, b), gy, stride=2, pad=1)
    old_limit = catena_cuda.get_max_workspace_size()
    config = {'autotune': ('autotune', True),
              'cudnn_deterministic': ('cudnn_deterministic', True),
              'no_tensor_core': ('use_cudnn_tensor_core', 'never')}.get(setting)
    try:
        if setting == 'no_workspace':
            catena_cuda.set_max_workspace_size(0)
        with catena.using_config(*config) if config else contextlib.nullcontext():
            actual = _run('always', F.convolution_2d, (x, W, b), gy, stride=2, pad=1)
    finally:
        catena_cuda.set_max_workspace_size(old_limit)
    _assert_close(actual, expected, numpy.float32)


@pytest.mark.gpu
@needs_cudnn
def test_runs_on_the_current_stream() -> None:
    cupy = catena_cuda.cupy
    x, W, b, rng = _inputs((2, 3, 8, 8), (5, 3, 3, 3), False, numpy.float32, seed=7)
    gy = rng.uniform(-1, 1, (2, 5, 8, 8)).astype(numpy.float32)
    expected = _run('never', F.convolution_2d, (x, W, b), gy, pad=1)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        before = _calls()
        actual = _run('always', F.convolution_2d, (x, W, b), gy, pad=1)
        assert _delta(before) == dict.fromkeys(NAMES, 1)
        assert _cudnn.current_handle(0).stream == stream.ptr
    _assert_close(actual, expected, numpy.float32)
