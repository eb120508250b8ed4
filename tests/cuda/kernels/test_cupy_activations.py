"""catena-cuda's CuPy kernels of the activations against the core's generic path.

On the CPU, the kernels' bodies run through the test interpreter
(``_c_body``) on NumPy arrays: the kernels are put into the core's registry
for ``numpy.ndarray``, so that ``FunctionNode.apply``, backward and double
backward go through them exactly as they would on a GPU. On a GPU, the real
kernels are compared with the generic CuPy path (``use_cupy_kernels='never'``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy
import pytest
from tests.cuda.kernels import _support

import catena
import catena.functions as F
from catena import gradient_check
from catena.backends._numpy import CpuDevice
from catena.functions.activation import (
    clipped_relu as clipped_relu_nodes,
    elu as elu_nodes,
    leaky_relu as leaky_relu_nodes,
    relu as relu_nodes,
    sigmoid as sigmoid_nodes,
    tanh as tanh_nodes,
)

catena_cuda = pytest.importorskip('catena_cuda')

from catena.backends import Fallback  # noqa: E402
from catena_cuda.kernels import _common  # noqa: E402

GPU = catena_cuda.available
needs_gpu = pytest.mark.skipif(not GPU, reason='needs CuPy and a CUDA GPU')

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SPECIAL = [numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0, 1e4, -1e4, 1e-8, -1e-8, 60000.0,
           -60000.0, 0.5, -0.5, 1.5, 20.0, 25.0]


class Case(NamedTuple):
    """One activation as the tests call it, and the kernels it should run."""

    id: str
    module: str
    function: Callable[[Any], Any]
    forward: str | None  # spec name run by the forward, None for the generic one
    grad: str | None  # spec name run by the backward
    kinks: tuple[float, ...] = (0.0,)  # points the gradient checks keep away from


CASES = [
    Case('relu', 'relu', F.relu, 'catena_relu', None),
    Case('leaky_relu-0.2', 'leaky_relu', lambda x: F.leaky_relu(x, 0.2),
         'catena_leaky_relu_max', None),
    Case('leaky_relu-0', 'leaky_relu', lambda x: F.leaky_relu(x, 0.0),
         'catena_leaky_relu_max', None),
    Case('leaky_relu-1', 'leaky_relu', lambda x: F.leaky_relu(x, 1.0),
         'catena_leaky_relu_max', None),
    Case('leaky_relu--0.5', 'leaky_relu', lambda x: F.leaky_relu(x, -0.5),
         'catena_leaky_relu_max', None),
    Case('leaky_relu-1.5', 'leaky_relu', lambda x: F.leaky_relu(x, 1.5),
         'catena_leaky_relu_min', None),
    Case('elu-1', 'elu', F.elu, 'catena_elu', 'catena_elu_grad'),
    Case('elu-0.5', 'elu', lambda x: F.elu(x, 0.5), 'catena_elu', 'catena_elu_grad_scaled'),
    Case('elu-2', 'elu', lambda x: F.elu(x, 2.0), 'catena_elu', 'catena_elu_grad_scaled'),
    Case('elu--1', 'elu', lambda x: F.elu(x, -1.0), 'catena_elu', 'catena_elu_grad_scaled'),
    Case('sigmoid', 'sigmoid', F.sigmoid, 'catena_sigmoid', 'catena_sigmoid_grad', ()),
    Case('tanh', 'tanh', F.tanh, None, 'catena_tanh_grad', ()),
    Case('clipped_relu-20', 'clipped_relu', F.clipped_relu, 'catena_clipped_relu', None,
         (0.0, 20.0)),
    Case('clipped_relu-1.5', 'clipped_relu', lambda x: F.clipped_relu(x, 1.5),
         'catena_clipped_relu', None, (0.0, 1.5)),
    Case('clipped_relu-0', 'clipped_relu', lambda x: F.clipped_relu(x, 0.0),
         'catena_clipped_relu', None),
]


def _pairs() -> list[tuple[type, Any]]:
    return [pair for name in _support.ACTIVATIONS
            for pair in _support.module(f'activation.{name}').registrations()]


def _values(dtype: Any, shape: tuple[int, ...] = (4, 10), seed: int = 0) -> numpy.ndarray:
    """Random values in [-6, 6] with NaN, infinities, zeros and extremes among them."""
    rng = numpy.random.default_rng(seed)
    x = rng.uniform(-6, 6, shape)
    flat = x.reshape(-1)
    flat[:len(SPECIAL)] = SPECIAL
    return x.astype(dtype)


def _smooth(case: Case, dtype: Any, seed: int = 1) -> numpy.ndarray:
    """Finite values away from the case's kinks, for gradient checks."""
    rng = numpy.random.default_rng(seed)
    x = rng.uniform(-3, 3, (3, 4))
    for kink in case.kinks:
        x[numpy.abs(x - kink) < 0.1] = kink + 0.5
    return x.astype(dtype)


def _forward_backward(case: Case, x: Any, gy: Any, ggx: Any) -> tuple[Any, Any, Any]:
    """``y``, ``gx`` and the gradient of ``sum(gx * ggx)`` with respect to ``x``."""
    xv = catena.Variable(x)
    y = case.function(xv)
    gx, = catena.grad([y], [xv], grad_outputs=[catena.Variable(gy)], enable_double_backprop=True)
    gx.grad = ggx
    gx.backward()
    return y.array, gx.array, xv.grad


@pytest.fixture(autouse=True)
def _no_ideep() -> Iterator[None]:
    # catena-intel64, when installed, may serve some of these nodes on NumPy.
    with catena.using_config('use_ideep', 'never'):
        yield


# ---------------------------------------------------------------------------
# CPU: bodies interpreted on NumPy, through the registry
# ---------------------------------------------------------------------------

@pytest.mark.parametrize('dtype', DTYPES, ids=lambda t: numpy.dtype(t).name)
@pytest.mark.parametrize('case', CASES, ids=lambda c: c.id)
def test_interpreted_kernels_match_the_generic_path(case: Case, dtype: Any,
                                                    monkeypatch: Any) -> None:
    launches = _support.interpret(monkeypatch)
    x = _values(dtype)
    gy = _values(dtype, seed=1)
    ggx = _values(dtype, seed=2)
    before = dict(_common.calls)
    with numpy.errstate(all='ignore'):
        expected = _forward_backward(case, x, gy, ggx)
        assert not launches
        with _support.registered(_pairs(), numpy.ndarray, CpuDevice):
            actual = _forward_backward(case, x, gy, ggx)
    ran = [launch.spec.name for launch in launches]
    # The grad node runs twice: in the backward and in the double backward's forward.
    assert ran.count(case.forward) == (case.forward is not None)
    assert set(ran) <= {case.forward, case.grad}
    if case.grad is not None:
        assert ran.count(case.grad) >= 1
    for name in ran:
        assert _common.calls[name] > before.get(name, 0)
    for got, want in zip(actual, expected):
        if want is None:  # piecewise-linear: gx does not depend on x
            assert got is None
            continue
        assert got.dtype == want.dtype and got.shape == want.shape
        numpy.testing.assert_array_equal(got, want)


@pytest.mark.parametrize('case', CASES, ids=lambda c: c.id)
def test_never_runs_no_kernel(case: Case, monkeypatch: Any) -> None:
    launches = _support.interpret(monkeypatch)
    x = _values(numpy.float32)
    with numpy.errstate(all='ignore'), catena.using_config('use_cupy_kernels', 'never'):
        with _support.registered(_pairs(), numpy.ndarray, CpuDevice):
            _forward_backward(case, x, x, x)
    assert launches == []


@pytest.mark.parametrize('case', CASES, ids=lambda c: c.id)
def test_gradients_through_interpreted_kernels(case: Case, monkeypatch: Any) -> None:
    launches = _support.interpret(monkeypatch)
    x = _smooth(case, numpy.float64)
    gy = _smooth(case, numpy.float64, seed=2) - 0.25
    ggx = _smooth(case, numpy.float64, seed=3) + 0.25
    with _support.registered(_pairs(), numpy.ndarray, CpuDevice):
        gradient_check.check_backward(case.function, x, gy, atol=1e-7, rtol=1e-6)
        gradient_check.check_double_backward(case.function, x, gy, ggx, atol=1e-6, rtol=1e-5)
    assert launches


# Node-level: a kernel leaves the node as the generic forward does.
NODES: dict[type, Callable[[Any], tuple[Any, tuple[Any, ...]]]] = {
    relu_nodes.ReLU: lambda t: (relu_nodes.ReLU(), (_values(t),)),
    leaky_relu_nodes.LeakyReLU: lambda t: (leaky_relu_nodes.LeakyReLU(0.3), (_values(t),)),
    elu_nodes.ELU: lambda t: (elu_nodes.ELU(0.7), (_values(t),)),
    elu_nodes.ELUGrad: lambda t: (elu_nodes.ELUGrad(0.7), (_values(t),)),
    sigmoid_nodes.Sigmoid: lambda t: (sigmoid_nodes.Sigmoid(), (_values(t),)),
    sigmoid_nodes.SigmoidGrad: lambda t: (sigmoid_nodes.SigmoidGrad(),
                                          (_values(t) / 12 + 0.5, _values(t, seed=3))),
    tanh_nodes.TanhGrad: lambda t: (tanh_nodes.TanhGrad(), (_values(t) / 6, _values(t, seed=3))),
    clipped_relu_nodes.ClippedReLU: lambda t: (clipped_relu_nodes.ClippedReLU(2.5),
                                               (_values(t),)),
}


def test_cases_cover_every_spec() -> None:
    specs = {spec.name for name in _support.ACTIVATIONS
             for spec in _support.module(f'activation.{name}').SPECS}
    covered = {case.forward for case in CASES} | {case.grad for case in CASES}
    assert specs == covered - {None}


def test_every_registered_node_is_tested() -> None:
    registered = [node_class for node_class, _ in _pairs()]
    assert len(registered) == len(set(registered))
    assert set(registered) == set(NODES)


def _node_state(node: Any) -> dict[str, Any]:
    return {key: value for key, value in vars(node).items() if not isinstance(value,
                                                                             numpy.ndarray)}


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda t: numpy.dtype(t).name)
@pytest.mark.parametrize('pair', _pairs(), ids=lambda p: p[0].__name__)
def test_kernel_leaves_the_node_as_the_generic_forward(pair: tuple[type, Any], dtype: Any,
                                                       monkeypatch: Any) -> None:
    launches = _support.interpret(monkeypatch)
    node_class, kernel = pair
    node, inputs = NODES[node_class](dtype)
    twin, _ = NODES[node_class](dtype)
    with numpy.errstate(all='ignore'):
        outputs = kernel(node, inputs)
        expected = twin.forward(inputs)
    assert len(launches) == 1
    assert isinstance(outputs, tuple) and len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        assert type(got) is numpy.ndarray and got.dtype == want.dtype
        numpy.testing.assert_array_equal(got, want)
    assert _node_state(node) == _node_state(twin)
    assert node._input_indexes_to_retain == twin._input_indexes_to_retain
    assert node._output_indexes_to_retain == twin._output_indexes_to_retain


@pytest.mark.parametrize('pair', _pairs(), ids=lambda p: p[0].__name__)
def test_declines_what_it_does_not_cover(pair: tuple[type, Any], monkeypatch: Any) -> None:
    launches = _support.interpret(monkeypatch)
    node_class, kernel = pair
    node, inputs = NODES[node_class](numpy.float32)
    as_ints = tuple(numpy.zeros(array.shape, numpy.int32) for array in inputs)
    assert kernel(node, as_ints) is Fallback
    if len(inputs) == 2:
        y, gy = inputs
        assert kernel(node, (y, gy.astype(numpy.float64))) is Fallback
        assert kernel(node, (y, gy[:1])) is Fallback
    assert launches == []
    assert node._input_indexes_to_retain is None
    assert node._output_indexes_to_retain is None


# ---------------------------------------------------------------------------
# GPU: the real kernels against the generic CuPy path
# ---------------------------------------------------------------------------

@pytest.fixture
def gpu_kernels() -> Iterator[Any]:
    """CuPy, with this module's kernels registered (even before MODULES lists them)."""
    import cupy

    from catena_cuda.device import GpuDevice

    with _support.registered(_pairs(), cupy.ndarray, GpuDevice):
        yield cupy


def _gpu_close(actual: Any, expected: Any) -> None:
    actual, expected = catena_cuda.to_cpu(actual), catena_cuda.to_cpu(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    # Same operations, same roundings, no FMA contraction: equal up to libm's last bits.
    rtol = {numpy.float16: 1e-3, numpy.float32: 1e-6, numpy.float64: 1e-14}[actual.dtype.type]
    numpy.testing.assert_allclose(actual, expected, rtol=rtol, atol=0, equal_nan=True)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize('dtype', DTYPES, ids=lambda t: numpy.dtype(t).name)
@pytest.mark.parametrize('case', CASES, ids=lambda c: c.id)
def test_gpu_kernels_match_the_generic_cupy_path(case: Case, dtype: Any,
                                                 gpu_kernels: Any) -> None:
    cupy = gpu_kernels
    x, gy, ggx = (cupy.asarray(_values(dtype, (64, 33), seed)) for seed in (0, 1, 2))
    before = dict(_common.calls)
    with numpy.errstate(all='ignore'):
        actual = _forward_backward(case, x, gy, ggx)
        after_auto = dict(_common.calls)
        with catena.using_config('use_cupy_kernels', 'never'):
            expected = _forward_backward(case, x, gy, ggx)
    for name in (case.forward, case.grad):
        if name is not None:
            assert after_auto.get(name, 0) > before.get(name, 0)
    assert dict(_common.calls) == after_auto
    for got, want in zip(actual, expected):
        if want is None:  # piecewise-linear: gx does not depend on x
            assert got is None
            continue
        assert isinstance(got, cupy.ndarray)
        _gpu_close(got, want)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize('case', CASES, ids=lambda c: c.id)
def test_gpu_gradients(case: Case, gpu_kernels: Any) -> None:
    cupy = gpu_kernels
    x = cupy.asarray(_smooth(case, numpy.float64))
    gy = cupy.asarray(_smooth(case, numpy.float64, seed=2) - 0.25)
    ggx = cupy.asarray(_smooth(case, numpy.float64, seed=3) + 0.25)
    before = sum(_common.calls.values())
    gradient_check.check_backward(case.function, x, gy, atol=1e-7, rtol=1e-6)
    gradient_check.check_double_backward(case.function, x, gy, ggx, atol=1e-6, rtol=1e-5)
    assert sum(_common.calls.values()) > before


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize('case', [c for c in CASES if c.forward], ids=lambda c: c.id)
def test_gpu_forward_is_one_launch(case: Case, gpu_kernels: Any, monkeypatch: Any) -> None:
    cupy = gpu_kernels
    log = _support.count_launches(monkeypatch)
    x = cupy.asarray(_values(numpy.float32, (128, 7)))
    with catena.no_backprop_mode():
        case.function(x)
    assert log == [case.forward]


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize('case', [c for c in CASES if c.forward], ids=lambda c: c.id)
def test_gpu_strided_input(case: Case, gpu_kernels: Any) -> None:
    cupy = gpu_kernels
    x = cupy.asarray(_values(numpy.float32, (16, 24))).T[::2]
    assert not x.flags.c_contiguous
    before = _common.calls[case.forward]
    with catena.no_backprop_mode():
        y = case.function(x).array
        with catena.using_config('use_cupy_kernels', 'never'):
            expected = case.function(x).array
    assert _common.calls[case.forward] == before + 1
    _gpu_close(y, expected)
