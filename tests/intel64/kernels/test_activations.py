"""oneDNN eltwise kernels of relu, leaky_relu, elu, tanh and sigmoid against the generic path."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy
import pytest

import catena
import catena.functions as F
from catena import gradient_check
from catena.functions.activation import (
    elu as elu_nodes,
    leaky_relu as leaky_relu_nodes,
    relu as relu_nodes,
    sigmoid as sigmoid_nodes,
    tanh as tanh_nodes,
)

pytest.importorskip('catena_intel64')

from catena_intel64 import _primitive  # noqa: E402
from catena_intel64.kernels.activation import _eltwise  # noqa: E402

pytestmark = pytest.mark.ideep

MODULES = ('relu', 'leaky_relu', 'elu', 'tanh', 'sigmoid')


def _module(name: str) -> Any:
    return importlib.import_module(f'catena_intel64.kernels.activation.{name}')



class Op(NamedTuple):
    """One activation as the tests call it."""

    id: str
    function: Callable[[Any], Any]
    module: str
    forward: str  # kernel names in _primitive.calls
    grad: str
    exact: bool  # oneDNN computes the same float32 operations as NumPy
    low: float = -2.0
    high: float = 2.0


OPS = [
    Op('relu', F.relu, 'relu', 'relu', 'relu_grad', True),
    Op('leaky_relu-0.2', lambda x: F.leaky_relu(x, 0.2), 'leaky_relu', 'leaky_relu',
       'leaky_relu_grad', True),
    Op('leaky_relu-0', lambda x: F.leaky_relu(x, 0.0), 'leaky_relu', 'leaky_relu',
       'leaky_relu_grad', True),
    Op('leaky_relu--0.5', lambda x: F.leaky_relu(x, -0.5), 'leaky_relu', 'leaky_relu',
       'leaky_relu_grad', True),
    Op('leaky_relu-1.5', lambda x: F.leaky_relu(x, 1.5), 'leaky_relu', 'leaky_relu',
       'leaky_relu_grad', True),
    Op('elu-1', F.elu, 'elu', 'elu', 'elu_grad', False),
    Op('elu-0.5', lambda x: F.elu(x, 0.5), 'elu', 'elu', 'elu_grad', False),
    Op('elu-2', lambda x: F.elu(x, 2.0), 'elu', 'elu', 'elu_grad', False),
    Op('tanh', F.tanh, 'tanh', 'tanh', 'tanh_grad', False, -3.0, 3.0),
    Op('sigmoid', F.sigmoid, 'sigmoid', 'sigmoid', 'sigmoid_grad', False, -6.0, 6.0),
]

SHAPES = [(), (1,), (7,), (3, 5), (2, 3, 4, 5), (4, 8, 17, 19)]


def _inputs(op: Op, shape: tuple[int, ...], dtype: Any = numpy.float32,
            seed: int = 0) -> tuple[numpy.ndarray, numpy.ndarray]:
    rng = numpy.random.default_rng(seed)
    x = rng.uniform(op.low, op.high, shape)
    x[numpy.abs(x) < 0.05] = 0.5  # away from the kinks at 0
    gy = rng.uniform(-1, 1, shape)
    return x.astype(dtype), gy.astype(dtype)


def _close(actual: Any, expected: Any, exact: bool) -> None:
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    if exact:
        numpy.testing.assert_array_equal(actual, expected)
    else:
        numpy.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


def _forward_backward(op: Op, x: numpy.ndarray, gy: numpy.ndarray,
                      level: str) -> tuple[numpy.ndarray, numpy.ndarray]:
    with catena.using_config('use_ideep', level):
        xv = catena.Variable(x)
        y = op.function(xv)
        y.grad = gy
        y.backward()
    return y.array, xv.grad


@pytest.mark.parametrize('shape', SHAPES, ids=str)
@pytest.mark.parametrize('op', OPS, ids=lambda op: op.id)
def test_forward_and_backward_match_the_generic_path(op: Op, shape: tuple[int, ...]) -> None:
    x, gy = _inputs(op, shape)
    before = dict(_primitive.calls)
    y, gx = _forward_backward(op, x, gy, 'always')
    assert _primitive.calls[op.forward] == before.get(op.forward, 0) + 1
    assert _primitive.calls[op.grad] == before.get(op.grad, 0) + 1
    y_generic, gx_generic = _forward_backward(op, x, gy, 'never')
    _close(y, y_generic, op.exact)
    _close(gx, gx_generic, op.exact)


@pytest.mark.parametrize('op', OPS, ids=lambda op: op.id)
def test_never_runs_no_kernel(op: Op) -> None:
    x, gy = _inputs(op, (64, 1024))
    before = dict(_primitive.calls)
    _forward_backward(op, x, gy, 'never')
    assert dict(_primitive.calls) == before


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float64])
@pytest.mark.parametrize('op', OPS, ids=lambda op: op.id)
def test_other_dtypes_fall_back(op: Op, dtype: Any) -> None:
    x, gy = _inputs(op, (3, 4), dtype)
    before = dict(_primitive.calls)
    y, gx = _forward_backward(op, x, gy, 'always')
    assert dict(_primitive.calls) == before
    y_generic, gx_generic = _forward_backward(op, x, gy, 'never')
    numpy.testing.assert_array_equal(y, y_generic)
    numpy.testing.assert_array_equal(gx, gx_generic)


@pytest.mark.parametrize('op', OPS, ids=lambda op: op.id)
def test_empty_arrays_fall_back(op: Op) -> None:
    x, gy = _inputs(op, (0, 3))
    before = dict(_primitive.calls)
    y, gx = _forward_backward(op, x, gy, 'always')
    assert dict(_primitive.calls) == before
    assert y.shape == gx.shape == (0, 3)
    assert y.dtype == gx.dtype == numpy.float32


@pytest.mark.parametrize('op', OPS, ids=lambda op: op.id)
def test_non_contiguous_inputs(op: Op) -> None:
    x, gy = _inputs(op, (6, 10, 8))
    x, gy = x.transpose(2, 0, 1)[:, ::2], gy[::2].transpose(2, 0, 1)
    assert not x.flags.c_contiguous and not gy.flags.c_contiguous
    before = _primitive.calls[op.forward]
    y, gx = _forward_backward(op, x, gy, 'always')
    assert _primitive.calls[op.forward] == before + 1
    y_generic, gx_generic = _forward_backward(op, x, gy, 'never')
    _close(y, y_generic, op.exact)
    _close(gx, gx_generic, op.exact)


@pytest.mark.parametrize('op', OPS, ids=lambda op: op.id)
def test_forward_on_onednn_then_generic_backward(op: Op) -> None:
    x, gy = _inputs(op, (5, 7))
    with catena.using_config('use_ideep', 'always'):
        xv = catena.Variable(x)
        y = op.function(xv)
    assert y.creator_node.implementation.startswith(f'oneDNN {op.forward} ')
    before = _primitive.calls[op.grad]
    with catena.using_config('use_ideep', 'never'):
        y.grad = gy
        y.backward()
    assert _primitive.calls[op.grad] == before
    _, gx_generic = _forward_backward(op, x, gy, 'never')
    _close(xv.grad, gx_generic, op.exact)


@pytest.mark.parametrize('op', OPS, ids=lambda op: op.id)
def test_check_backward(op: Op) -> None:
    x, gy = _inputs(op, (3, 4), seed=1)
    before = _primitive.calls[op.grad]
    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_backward(op.function, x, gy, eps=1e-3, atol=1e-3, rtol=1e-3)
    assert _primitive.calls[op.grad] > before


@pytest.mark.parametrize('op', OPS, ids=lambda op: op.id)
def test_check_double_backward(op: Op) -> None:
    x, gy = _inputs(op, (3, 4), seed=2)
    ggx = numpy.random.default_rng(3).uniform(-1, 1, x.shape).astype(numpy.float32)
    before = _primitive.calls[op.grad]
    with catena.using_config('use_ideep', 'always'):
        gradient_check.check_double_backward(op.function, x, gy, ggx, eps=1e-3, atol=1e-2,
                                             rtol=1e-2)
    assert _primitive.calls[op.grad] > before


def _nodes(op: Op, x: numpy.ndarray, gy: numpy.ndarray) -> list[tuple[Any, tuple[Any, ...]]]:
    """Each of the op's kernel nodes, freshly built, with the inputs it is applied to."""
    y = numpy.tanh(x)
    positive = (x > 0).astype(numpy.float32)
    slopes = numpy.where(x < 0, numpy.float32(0.2), numpy.float32(1))
    table: dict[str, list[tuple[Any, tuple[Any, ...]]]] = {
        'relu': [(relu_nodes.ReLU(), (x,)), (relu_nodes.ReLUGrad2(y), (gy,))],
        'leaky_relu': [(leaky_relu_nodes.LeakyReLU(0.2), (x,)),
                       (leaky_relu_nodes._LeakyReLUGrad(slopes), (gy,))],
        'elu': [(elu_nodes.ELU(0.5), (x,)), (elu_nodes.ELUGrad(0.5), (x,))],
        'tanh': [(tanh_nodes.Tanh(), (x,)), (tanh_nodes.TanhGrad(), (y, gy))],
        'sigmoid': [(sigmoid_nodes.Sigmoid(), (x,)),
                    (sigmoid_nodes.SigmoidGrad(), (positive * 0.5 + 0.25, gy))],
    }
    return table[op.module]


@pytest.mark.parametrize('level', ['always', 'never'])
@pytest.mark.parametrize('module', MODULES)
def test_nodes_retain_what_the_generic_forward_retains(module: str, level: str) -> None:
    op = next(op for op in OPS if op.module == module)
    x, gy = _inputs(op, (4, 6))
    for (node, inputs), (generic, _) in zip(_nodes(op, x, gy), _nodes(op, x, gy)):
        with catena.using_config('use_ideep', level):
            node.apply([catena.Variable(a) for a in inputs])
        with catena.using_config('use_ideep', 'never'):
            generic.apply([catena.Variable(a) for a in inputs])
        assert node._input_indexes_to_retain == generic._input_indexes_to_retain
        assert node._output_indexes_to_retain == generic._output_indexes_to_retain
        assert hasattr(node, 'implementation') == (level == 'always')


@pytest.mark.parametrize('module', MODULES)
def test_grad_nodes_match_the_generic_forward(module: str) -> None:
    op = next(op for op in OPS if op.module == module)
    x, gy = _inputs(op, (33, 65))
    for (node, inputs), (generic, _) in zip(_nodes(op, x, gy), _nodes(op, x, gy)):
        with catena.using_config('use_ideep', 'always'):
            out, = node.apply(inputs)
        with catena.using_config('use_ideep', 'never'):
            expected, = generic.apply(inputs)
        assert node.implementation.startswith('oneDNN ')
        _close(out.array, expected.array, op.exact)


@pytest.mark.parametrize('node', [tanh_nodes.TanhGrad, sigmoid_nodes.SigmoidGrad])
def test_grad_nodes_with_broadcast_inputs_fall_back(node: Any) -> None:
    rng = numpy.random.default_rng(4)
    y = rng.uniform(-1, 1, (3, 4)).astype(numpy.float32)
    gy = rng.uniform(-1, 1, (4,)).astype(numpy.float32)
    before = dict(_primitive.calls)
    with catena.using_config('use_ideep', 'always'):
        gx, = node().apply((y, gy))
    assert dict(_primitive.calls) == before
    with catena.using_config('use_ideep', 'never'):
        expected, = node().apply((y, gy))
    numpy.testing.assert_array_equal(gx.array, expected.array)


@pytest.mark.parametrize('alpha', [1.0, 0.5, 2.0])
def test_elu_derivative_at_zero_is_one(alpha: float) -> None:
    x = numpy.array([[-1.0, -0.0, 0.0, 1e-30], [-1e-30, 0.0, 3.0, -3.0]], numpy.float32)
    with catena.using_config('use_ideep', 'always'):
        node = elu_nodes.ELUGrad(alpha)
        dydx, = node.apply((x,))
    assert node.implementation.startswith('oneDNN elu_grad ')
    with catena.using_config('use_ideep', 'never'):
        expected, = elu_nodes.ELUGrad(alpha).apply((x,))
    assert dydx.array[x == 0].tolist() == [1.0, 1.0, 1.0]
    numpy.testing.assert_allclose(dydx.array, expected.array, rtol=1e-6)


@pytest.mark.parametrize('op', OPS, ids=lambda op: op.id)
def test_extreme_values(op: Op) -> None:
    x = numpy.array([-numpy.inf, -1e4, -100, -30, -10, -1e-3, 0, 1e-3, 10, 30, 100, 1e4,
                     numpy.inf], numpy.float32)
    if op.id == 'leaky_relu-0':
        # The generic path's inf * 0 gives NaN where oneDNN gives 0 (and keeps inf).
        x = x[1:-1]
    if op.module == 'elu':
        # The generic path's -inf - (-inf) gives NaN where oneDNN gives -alpha.
        x = x[1:]
    with catena.using_config('use_ideep', 'always'):
        y = op.function(x).array
    with catena.using_config('use_ideep', 'never'):
        expected = op.function(x).array
    # Absolute agreement: oneDNN's elu is alpha * (exp(x) - 1), whose error near 0 is
    # that of exp(x) (about 6e-8); the generic sigmoid is (1 + tanh(x / 2)) / 2, 0 below
    # about -17 where oneDNN's logistic keeps the tiny true value.
    _close(y, expected, op.exact)


def test_one_primitive_serves_every_shape_of_a_size() -> None:
    _primitive.clear_cache()
    with catena.using_config('use_ideep', 'always'):
        for shape in [(24,), (2, 12), (4, 3, 2), (1, 2, 3, 4)]:
            F.tanh(numpy.zeros(shape, numpy.float32))
    keys = [key for key in _primitive._state.operations if 'tanh' in key]
    assert len(keys) == 1


@pytest.mark.parametrize('module', MODULES)
def test_auto_declines_below_the_threshold(module: str) -> None:
    op = next(op for op in OPS if op.module == module)
    thresholds = (_module(module).THRESHOLD, _module(module).GRAD_THRESHOLD)
    # NO_CROSSOVER: that kernel never runs under 'auto'
    sizes = {size for t in thresholds if t < _eltwise.NO_CROSSOVER for size in (t - 1, t)}
    for size in sorted(sizes):
        x, gy = _inputs(op, (max(size, 1),))
        before = dict(_primitive.calls)
        _forward_backward(op, x, gy, 'auto')
        for name, threshold in zip((op.forward, op.grad), thresholds):
            ran = _primitive.calls[name] - before.get(name, 0)
            assert ran == (x.size >= threshold), (name, x.size, threshold)
