"""The two engines: choosing one (CATENA_ENGINE), and the compiled one computing
what the pure-Python one does.

Every scenario below runs under both engines (the ``engine`` fixture swaps
``FunctionNode.apply``, Variable's ``+``/``*`` and the backprop loop in
place) and checks the result against NumPy or against the other engine.
The ``tests-core`` sessions also run the whole core suite once per engine.
"""

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import (
    Fallback,
    FunctionHook,
    FunctionNode,
    Variable,
    _backprop,
    _engine,
    _quick_types,
    function_node,
)
from catena.backends import Kernel
from catena.backends._numpy import CpuDevice
from catena.functions.math import basic_math
from catena.plugins import _manager
from catena.testing import plugins
from catena.testing.plugins import FakeEntryPoint

COMPILED = _engine.name == 'compiled'
needs_compiled = pytest.mark.skipif(not COMPILED, reason=f'engine: {_engine.description()}')

OPERATORS = ('__add__', '__radd__', '__mul__', '__rmul__')


def _python_operators():
    return {'__add__': basic_math._add, '__radd__': basic_math._add,
            '__mul__': basic_math._mul, '__rmul__': basic_math._mul}


@pytest.fixture(params=['python', 'compiled'])
def engine(request, monkeypatch):
    """Runs the test with one engine's apply, operators and backprop loop."""
    if request.param == 'python':
        monkeypatch.setattr(FunctionNode, 'apply', function_node._python_apply)
        monkeypatch.setattr(_backprop, '_propagate', _backprop._python_propagate)
        for name, method in _python_operators().items():
            monkeypatch.setattr(Variable, name, method)
    elif not COMPILED:
        pytest.skip(f'engine: {_engine.description()}')
    return request.param


def _run(code, **env):
    environment = {**os.environ, **env}
    return subprocess.run([sys.executable, '-c', code], env=environment, capture_output=True,
                          text=True, timeout=120)


# ---------------------------------------------------------------- choosing


@pytest.mark.parametrize('value, expected', [
    ('', 'auto'), ('auto', 'auto'), ('python', 'python'), (' Compiled ', 'compiled')])
def test_requested_reads_catena_engine(monkeypatch, value, expected):
    monkeypatch.setenv('CATENA_ENGINE', value)
    assert _engine.requested() == expected


def test_requested_rejects_an_unknown_engine(monkeypatch):
    monkeypatch.setenv('CATENA_ENGINE', 'cython')
    with pytest.raises(ValueError, match="CATENA_ENGINE must be one of auto, compiled, "
                                         "python; got 'cython'"):
        _engine.requested()


def test_runtime_info_names_the_engine():
    from catena import _runtime_info

    lines = _runtime_info.runtime_info_lines()
    assert f'Engine: {_engine.description()}' in lines


def test_python_engine_is_used_when_asked():
    done = _run('import catena._engine as e, catena; print(e.name, "|", e.reason)',
                CATENA_ENGINE='python')
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == 'python | CATENA_ENGINE=python'


BLOCKED = ("import sys; sys.modules['catena._cengine'] = None\n"
           "import catena._engine as e, catena\n"
           "print(e.name, '|', e.reason)\n")


def test_auto_falls_back_to_python_with_the_reason():
    done = _run(BLOCKED, CATENA_ENGINE='auto')
    assert done.returncode == 0, done.stderr
    name, reason = done.stdout.strip().split(' | ')
    assert name == 'python'
    assert reason.startswith('the compiled engine cannot be used (ModuleNotFoundError: '
                             'import of catena._cengine halted')


def test_compiled_refuses_to_fall_back():
    done = _run(BLOCKED, CATENA_ENGINE='compiled')
    assert done.returncode != 0
    assert 'CATENA_ENGINE=compiled, but the compiled engine cannot be used' in done.stderr


@needs_compiled
def test_compiled_engine_replaces_the_hot_paths():
    assert FunctionNode.apply is not function_node._python_apply
    assert _backprop._propagate is not _backprop._python_propagate
    assert Variable.__add__ is not basic_math._add
    assert 'Computes the outputs' in FunctionNode.apply.__doc__


# ------------------------------------------------------- forward and graph


def _arrays(seed=0, shape=(3, 4), dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, shape).astype(dtype) for _ in range(3)]


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_chain_forward_backward_matches_numpy(engine, dtype):
    x0, a, m = _arrays(dtype=dtype)
    x = Variable(x0)
    y = F.sum(F.tanh(x * m + a) * x)
    t = np.tanh(x0 * m + a)
    np.testing.assert_allclose(y.array, (t * x0).sum(), rtol=1e-2 if dtype == np.float16 else 1e-5)
    y.backward()
    expected = (1 - t * t) * m * x0 + t
    np.testing.assert_allclose(x.grad, expected, rtol=2e-2 if dtype == np.float16 else 1e-5,
                               atol=1e-3 if dtype == np.float16 else 1e-6)
    assert x.grad.dtype == dtype


def test_graph_structure(engine):
    x0, a, _ = _arrays()
    x = Variable(x0)
    h = x + a
    y = F.tanh(h)
    node = y.creator_node
    assert type(node).__name__ == 'Tanh' and node.rank == 1
    assert y.node.rank == 2 and y.node.creator_node is node
    assert node.inputs[0] is h.node
    assert node.outputs[0]() is y.node
    assert y.node.data is y.array  # Tanh retains its output
    assert y.node.shape == (3, 4) and y.node.dtype == np.float32
    add = h.creator_node
    assert add.rank == 0
    assert add.inputs[0] is x.node
    constant = add.inputs[1]
    assert constant.creator_node is None and not constant.requires_grad
    assert constant.shape == a.shape
    assert y.requires_grad and h.requires_grad


def test_retained_inputs_are_kept_in_the_nodes(engine):
    x0, m, _ = _arrays()
    x = Variable(x0)
    y = x * m
    mul = y.creator_node
    assert mul.inputs[0].data is x0 and mul.inputs[1].data is m
    retained = mul.get_retained_inputs()
    np.testing.assert_array_equal(retained[1].array, m)


def test_no_graph_without_backprop(engine):
    x = Variable(_arrays()[0])
    with catena.no_backprop_mode():
        y = F.tanh(x + x)
    assert y.creator_node is None and y.requires_grad


def test_inputs_that_need_no_grad_record_nothing(engine):
    x = Variable(_arrays()[0], requires_grad=False)
    y = x * x
    assert y.creator_node is None and not y.requires_grad


def test_any_iterable_of_inputs(engine):
    x0, a, _ = _arrays()
    y, = basic_math.Add().apply([Variable(x0), a])
    np.testing.assert_array_equal(y.array, x0 + a)
    y, = basic_math.Add().apply(iter([x0, a]))
    np.testing.assert_array_equal(y.array, x0 + a)


def test_a_mismatched_input_fails_the_type_check(engine):
    x0, _, _ = _arrays()
    with pytest.raises(catena.utils.type_check.InvalidType, match='lhs.dtype == rhs.dtype'):
        basic_math.Add().apply((Variable(x0), x0.astype(np.float64)))


def test_an_instance_check_type_forward_is_called(engine):
    x0, a, _ = _arrays()
    node = basic_math.Add()
    calls = []
    node.check_type_forward = lambda in_types: calls.append(len(in_types))
    node.apply((Variable(x0), a))
    assert calls == [2]


class _ListOutput(FunctionNode):
    def forward(self, inputs):
        return [inputs[0]]


def test_a_forward_that_returns_a_list_is_an_error(engine):
    with pytest.raises(TypeError, match=r"forward output must be a tuple \(_ListOutput\)\n"
                                        r"Actual: <class 'list'>"):
        _ListOutput().apply((np.ones(2, np.float32),))


class _ScalarOutput(FunctionNode):
    def forward(self, inputs):
        return inputs[0].sum(),


def test_a_forward_that_returns_a_scalar_is_an_error(engine):
    with pytest.raises(TypeError, match='must be a tuple of ndarrays'):
        _ScalarOutput().apply((np.ones(2, np.float32),))


class _Split(FunctionNode):
    """Two outputs: x * 2 and x * 3, the second retained."""

    def forward(self, inputs):
        x, = inputs
        self.retain_outputs((1,))
        return x * 2, x * 3

    def backward(self, indexes, grad_outputs):
        g2, g3 = grad_outputs
        total = None
        for g, factor in ((g2, 2.0), (g3, 3.0)):
            if g is not None:
                part = g * np.float32(factor)
                total = part if total is None else total + part
        return total,


def test_multiple_outputs(engine):
    x0 = _arrays()[0]
    x = Variable(x0)
    y2, y3 = _Split().apply((x,))
    assert y2.node.data is None and y3.node.data is y3.array
    assert y2.creator_node is y3.creator_node
    F.sum(y2 * y3).backward()
    np.testing.assert_allclose(x.grad, 12 * x0, rtol=1e-6)
    x.cleargrad()
    F.sum(y3).backward()  # one output without a gradient
    np.testing.assert_allclose(x.grad, np.full_like(x0, 3))


def test_an_absent_input_goes_through(engine):
    class KeepFirst(FunctionNode):
        def forward(self, inputs):
            return inputs[0].copy(),

    y, = KeepFirst().apply((np.ones(2, np.float32), None))
    np.testing.assert_array_equal(y.array, np.ones(2))


def test_function_hooks_see_every_call(engine):
    seen = []

    class Recorder(FunctionHook):
        name = 'recorder'

        def forward_preprocess(self, function, in_data):
            seen.append(('forward', function.label))

        def backward_preprocess(self, function, in_data, out_grad):
            seen.append(('backward', function.label))

    x = Variable(_arrays()[0])
    with Recorder():
        y = F.sum(F.tanh(x))
        y.backward()
    assert seen[:2] == [('forward', 'Tanh'), ('forward', 'Sum')]
    backward = [label for kind, label in seen if kind == 'backward']
    assert backward == ['Sum', 'Tanh']


def test_debug_mode_finds_nan(engine):
    x = Variable(np.array([-1.0, 1.0], np.float32))
    with catena.using_config('debug', True), pytest.raises(RuntimeError, match='NaN'):
        F.log(x)


# ----------------------------------------------------------------- kernels


class _Twice(FunctionNode):
    generic_calls = 0

    def forward(self, inputs):
        _Twice.generic_calls += 1
        self.retain_inputs((0,))
        return inputs[0] * 2,


@pytest.fixture
def twice_kernel(monkeypatch):
    """A plugin kernel for _Twice on NumPy arrays, gated by ``toy_level`` (from 4 elements)."""
    calls = []

    def kernel(node, inputs):
        calls.append(inputs[0].size)
        if inputs[0].size > 100:
            node.retain_outputs((0,))
            return Fallback
        return inputs[0] + inputs[0],

    class Plugin:
        @catena.hookimpl
        def catena_config_defaults(self):
            return {'toy_level': 'auto'}

        @catena.hookimpl
        def catena_register_kernels(self):
            return [Kernel(_Twice, CpuDevice, kernel, 'toy_level', 4)]

    monkeypatch.delenv('CATENA_DISABLE_PLUGIN_AUTOLOAD', raising=False)
    monkeypatch.delenv('CATENA_PLUGINS', raising=False)
    plugins.install_entry_points(monkeypatch, FakeEntryPoint('toy', Plugin(),
                                                             dist='catena-toy', version='1'))
    _manager.load()
    try:
        yield calls
    finally:
        _manager.reset_for_testing()
        del catena.global_config.toy_level


def test_a_kernel_runs_from_its_auto_min_size_on(engine, twice_kernel):
    for size in (3, 4):
        y, = _Twice().apply((np.ones(size, np.float32),))
        np.testing.assert_array_equal(y.array, np.full(size, 2))
    assert twice_kernel == [4]
    with catena.using_config('toy_level', 'always'):
        _Twice().apply((np.ones(3, np.float32),))
    with catena.using_config('toy_level', 'never'):
        _Twice().apply((np.ones(8, np.float32),))
    assert twice_kernel == [4, 3]


def test_a_declining_kernel_leaves_the_generic_forward_clean(engine, twice_kernel):
    before = _Twice.generic_calls
    x = Variable(np.ones(200, np.float32))
    y, = _Twice().apply((x,))
    assert _Twice.generic_calls == before + 1
    assert twice_kernel == [200]
    node = y.creator_node
    assert node._output_indexes_to_retain is None  # what the kernel set was dropped
    assert node.inputs[0].data is x.array  # what the generic forward set was kept


# ---------------------------------------------------------------- backprop


def test_fan_out_and_fan_in_use_the_heap(engine):
    x0, a, _ = _arrays(1)
    x = Variable(x0)
    h = F.tanh(x)
    branches = [h * a, F.tanh(h + a), h * h]
    y = F.sum(branches[0] + branches[1] * branches[2])
    y.backward()
    t = np.tanh(x0)
    u = np.tanh(t + a)
    dh = a + (1 - u * u) * t * t + u * 2 * t
    np.testing.assert_allclose(x.grad, dh * (1 - t * t), rtol=1e-5, atol=1e-6)


def test_retain_grad_keeps_intermediate_gradients(engine):
    x0 = _arrays()[0]
    x = Variable(x0)
    h = x * x
    y = F.sum(h)
    y.backward(retain_grad=True)
    np.testing.assert_array_equal(h.grad, np.ones_like(x0))
    np.testing.assert_allclose(x.grad, 2 * x0, rtol=1e-6)


def test_grad_returns_the_targets_only(engine):
    x0, a, _ = _arrays()
    x = Variable(x0)
    h = F.tanh(x + a)
    y = F.sum(h * h)
    gh, = catena.grad([y], [h])
    np.testing.assert_allclose(gh.array, 2 * np.tanh(x0 + a), rtol=1e-6)
    assert x.grad is None


def test_double_backprop(engine):
    x0 = _arrays()[0]
    x = Variable(x0)
    y = F.sum(x * x * x)
    gx, = catena.grad([y], [x], enable_double_backprop=True)
    F.sum(gx).backward()
    np.testing.assert_allclose(x.grad, 6 * x0, rtol=1e-5)


class _BadBackward(FunctionNode):
    def forward(self, inputs):
        return inputs[0].copy(),

    def backward(self, indexes, grad_outputs):
        raise ValueError('backward broke')


def test_an_error_in_backward_names_the_function(engine):
    x = Variable(np.ones(2, np.float32))
    y = F.sum(_BadBackward().apply((x,))[0])
    with pytest.raises(ValueError, match='backward broke') as raised:
        y.backward()
    if hasattr(raised.value, '__notes__'):
        assert raised.value.__notes__ == ['raised in the backward pass of _BadBackward']


class _WrongShape(FunctionNode):
    def forward(self, inputs):
        return inputs[0].copy(),

    def backward(self, indexes, grad_outputs):
        return Variable(np.ones(3, np.float32)),


def test_a_gradient_of_the_wrong_shape_is_an_error(engine):
    x = Variable(np.ones(2, np.float32))
    y = F.sum(_WrongShape().apply((x,))[0])
    with pytest.raises(ValueError, match='Shape of data and grad mismatch'):
        y.backward()


def test_unchained_outputs_pass_nothing(engine):
    x = Variable(np.ones(2, np.float32))
    h = x * x
    y = F.sum(h)
    h.unchain()
    y.backward()
    assert x.grad is None


def test_backward_in_another_thread_reads_that_threads_configuration(engine):
    import threading

    x = Variable(np.ones(2, np.float32))
    results = []

    def work():
        with catena.no_backprop_mode():
            results.append((x * x).creator_node)
        results.append((x * x).creator_node)

    with catena.no_backprop_mode():
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
        results.append((x * x).creator_node)
    assert results[0] is None and results[1] is not None and results[2] is None
    assert (x * x).creator_node is not None


def test_both_engines_agree_on_a_small_network():
    """The same training step under each engine gives the same numbers."""
    def step(use_python):
        saved = (FunctionNode.apply, _backprop._propagate,
                 *[Variable.__dict__[name] for name in OPERATORS])
        if use_python:
            FunctionNode.apply = function_node._python_apply
            _backprop._propagate = _backprop._python_propagate
            for name, method in _python_operators().items():
                setattr(Variable, name, method)
        try:
            rng = np.random.default_rng(3)
            model = catena.links.Linear(5, 4, initialW=rng.normal(size=(4, 5)).astype(np.float32))
            x = rng.normal(size=(6, 5)).astype(np.float32)
            loss = F.sum(F.tanh(model(x)) * F.tanh(model(x)))
            loss.backward()
            return float(loss.array), model.W.grad.copy(), model.b.grad.copy()
        finally:
            FunctionNode.apply, _backprop._propagate = saved[:2]
            for name, method in zip(OPERATORS, saved[2:]):
                setattr(Variable, name, method)

    python = step(True)
    compiled = step(False)
    assert math.isclose(python[0], compiled[0], rel_tol=1e-6)
    np.testing.assert_allclose(python[1], compiled[1], rtol=1e-6)
    np.testing.assert_allclose(python[2], compiled[2], rtol=1e-6)


class _KeepsItsGradient(FunctionNode):
    """y = x; its backward returns a gradient it keeps a reference to."""

    def forward(self, inputs):
        return inputs[0].copy(),

    def backward(self, indexes, grad_outputs):
        self.returned = grad_outputs[0] * np.float32(1.0)
        return self.returned,


def test_gradients_of_a_shared_input_are_summed_without_touching_the_returned_ones(engine):
    x = Variable(np.ones(3, np.float32))
    nodes = [_KeepsItsGradient() for _ in range(4)]
    y = sum(F.sum(node.apply((x,))[0] * np.float32(k + 1)) for k, node in enumerate(nodes))
    y.backward()
    np.testing.assert_array_equal(x.grad, np.full(3, 1 + 2 + 3 + 4, np.float32))
    for k, node in enumerate(nodes):
        np.testing.assert_array_equal(node.returned.array, np.full(3, k + 1, np.float32))


def test_a_pass_through_gradient_is_not_summed_into(engine):
    """Add's backward hands its output gradient to both inputs unchanged."""
    x = Variable(np.ones(2, np.float32))
    a = x * np.float32(2)
    b = x * np.float32(3)
    h = a + b
    y = F.sum(h * np.float32(5) + a + b)
    y.backward(retain_grad=True)
    np.testing.assert_array_equal(a.grad, np.full(2, 6, np.float32))
    np.testing.assert_array_equal(b.grad, np.full(2, 6, np.float32))
    np.testing.assert_array_equal(h.grad, np.full(2, 5, np.float32))
    np.testing.assert_array_equal(x.grad, np.full(2, 30, np.float32))


def _probe(test):
    class Probe(FunctionNode):
        checked = 0

        def check_type_forward(self, in_types):
            Probe.checked += 1

        _accepts_types = staticmethod(test)

        def forward(self, inputs):
            return inputs[0].copy(),

    return Probe


F32 = np.zeros((2, 3), np.float32)
QUICK_CASES = [
    # test, inputs, whether the quick test accepts them
    (_quick_types.two_same_arrays, (F32, F32 + 1), True),
    (_quick_types.two_same_arrays, (F32.astype(np.int32), F32.astype(np.int32)), True),
    (_quick_types.two_same_arrays, (F32, F32.astype(np.float64)), False),
    (_quick_types.two_same_arrays, (F32, F32.T), False),
    (_quick_types.two_same_arrays, (F32, F32[:1]), False),
    (_quick_types.two_same_arrays, (F32,), False),
    (_quick_types.two_same_arrays, (F32, F32, F32), False),
    (_quick_types.two_same_float_arrays, (F32, F32 + 1), True),
    (_quick_types.two_same_float_arrays, (F32.astype(np.int32),) * 2, False),
    (_quick_types.two_same_float_arrays, (F32.astype(np.float16),) * 2, True),
    (_quick_types.one_float_array, (F32,), True),
    (_quick_types.one_float_array, (F32.astype(np.int64),), False),
    (_quick_types.one_float_array, (F32, F32), False),
    (lambda in_data: len(in_data) == 1, (F32,), True),
]


@pytest.mark.parametrize('test, inputs, accepted', QUICK_CASES)
def test_a_quick_test_that_accepts_skips_check_type_forward(engine, test, inputs, accepted):
    assert test(inputs) is accepted
    probe = _probe(test)
    probe().apply(inputs)
    assert probe.checked == (0 if accepted else 1)
    with catena.using_config('type_check', False):
        probe().apply(inputs)
    assert probe.checked == (0 if accepted else 1)
