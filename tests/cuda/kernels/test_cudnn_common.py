"""The cuDNN machinery of catena-cuda's kernels: availability, dtypes, plan policy, cache.

CPU tests cover everything that is plain Python, plus (where the cuDNN
frontend is installed) how the kernels' graphs lower onto the frontend's
compiled bindings. GPU tests check handles and streams.
"""

from __future__ import annotations

import re
import sys
import threading
import types
from typing import Any

import numpy
import pytest

import catena

catena_cuda = pytest.importorskip('catena_cuda')

from catena_cuda.kernels import _cudnn  # noqa: E402

GPU = catena_cuda.available
needs_cudnn = pytest.mark.skipif(
    not GPU or not catena_cuda.cudnn_enabled,
    reason='needs a CUDA GPU and cuDNN enabled in catena-cuda (catena_cuda.cudnn_enabled)')


# ---------------------------------------------------------------------------
# Availability
# ---------------------------------------------------------------------------

@pytest.fixture
def fresh_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """Makes the next cudnn_available() probe again (monkeypatch restores the old result)."""
    monkeypatch.setattr(_cudnn, '_frontend_probed', False)
    monkeypatch.setattr(_cudnn, '_frontend', None)
    monkeypatch.setattr(_cudnn, '_frontend_reason', None)


def test_availability_is_consistent() -> None:
    reason = _cudnn.cudnn_available()
    if reason is None:
        assert _cudnn.backend_version() >= _cudnn.MIN_BACKEND_VERSION
        assert _cudnn.frontend().__name__ == 'cudnn'
    else:
        assert isinstance(reason, str) and reason
        assert _cudnn.backend_version() == 0
        with pytest.raises(RuntimeError, match=re.escape(reason)):
            _cudnn.frontend()
        assert not _cudnn.usable()


def test_missing_frontend_is_explained(fresh_probe: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, 'cudnn', None)
    reason = _cudnn.cudnn_available()
    assert reason is not None
    assert 'the cuDNN frontend is not installed' in reason
    assert _cudnn.FRONTEND_HINT in reason
    assert _cudnn.backend_version() == 0


def _fake_frontend(version: Any) -> types.ModuleType:
    module = types.ModuleType('cudnn')

    def backend_version() -> int:
        if isinstance(version, Exception):
            raise version
        return int(version)

    module.backend_version = backend_version  # type: ignore[attr-defined]
    return module


def test_missing_library_is_explained(fresh_probe: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, 'cudnn',
                        _fake_frontend(RuntimeError('Unable to find symbol cudnnGetVersion')))
    reason = _cudnn.cudnn_available()
    assert reason is not None
    assert 'the cuDNN library could not be loaded' in reason
    assert 'cudnnGetVersion' in reason


def test_old_library_is_refused(fresh_probe: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, 'cudnn', _fake_frontend(8600))
    reason = _cudnn.cudnn_available()
    assert reason is not None and 'too old: version 8600' in reason


def test_new_library_is_accepted(fresh_probe: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, 'cudnn', _fake_frontend(91000))
    assert _cudnn.cudnn_available() is None
    assert _cudnn.backend_version() == 91000


def test_usable_follows_should_use_cudnn() -> None:
    with catena.using_config('use_cudnn', 'never'):
        assert not _cudnn.usable()
    for level in ('auto', 'always'):
        with catena.using_config('use_cudnn', level):
            expected = (_cudnn.cudnn_available() is None
                        and catena_cuda.should_use_cudnn('>=auto'))
            assert _cudnn.usable() == expected


# ---------------------------------------------------------------------------
# Data types and layouts
# ---------------------------------------------------------------------------

@pytest.mark.parametrize('dtype, expected', [
    (numpy.float16, ('HALF', 'FLOAT')),
    (numpy.float32, ('FLOAT', 'FLOAT')),
    (numpy.float64, ('DOUBLE', 'DOUBLE')),
    (numpy.int32, None),
    (numpy.complex64, None),
])
def test_data_types(dtype: Any, expected: Any) -> None:
    assert _cudnn.data_types(dtype) == expected
    assert _cudnn.data_types(numpy.dtype(dtype).name) == expected


def test_data_type_names_exist_in_the_frontend() -> None:
    cudnn = pytest.importorskip('cudnn')
    for io, compute in _cudnn.DATA_TYPES.values():
        assert _cudnn.cudnn_type(cudnn, io) is getattr(cudnn.data_type, io)
        assert _cudnn.cudnn_type(cudnn, compute) is getattr(cudnn.data_type, compute)


@pytest.mark.parametrize('shape', [(2, 3, 4, 5), (7,), (1, 1), (3, 1, 2)])
def test_row_major_strides(shape: tuple[int, ...]) -> None:
    array = numpy.empty(shape, numpy.float32)
    assert _cudnn.row_major_strides(shape) == tuple(s // 4 for s in array.strides)


def test_host_scalars_pass_their_address() -> None:
    scalar = numpy.full((1, 1, 1, 1), 2e-5, numpy.float32)
    assert _cudnn._address(scalar) == scalar.ctypes.data
    assert _cudnn._address(None) is None
    assert _cudnn._pack({'eps': 7}, {'eps': scalar}) == {7: scalar.ctypes.data}


# ---------------------------------------------------------------------------
# Plan policy and keys
# ---------------------------------------------------------------------------

@pytest.fixture
def workspace_limit() -> Any:
    old = catena_cuda.get_max_workspace_size()
    yield
    catena_cuda.set_max_workspace_size(old)


def test_policy_reads_the_configuration(workspace_limit: None) -> None:
    catena_cuda.set_max_workspace_size(1234)
    with catena.using_config('cudnn_deterministic', True), \
            catena.using_config('autotune', True), \
            catena.using_config('use_cudnn_tensor_core', 'always'):
        policy = _cudnn.plan_policy(numpy.float32)
    assert policy == _cudnn.PlanPolicy(True, True, True, 1234)
    with catena.using_config('cudnn_deterministic', False), \
            catena.using_config('autotune', False), \
            catena.using_config('use_cudnn_tensor_core', 'never'):
        policy = _cudnn.plan_policy(numpy.float16)
    assert policy == _cudnn.PlanPolicy(False, False, False, 1234)


def test_policy_tensor_core_follows_catena_cuda() -> None:
    with catena.using_config('use_cudnn_tensor_core', 'auto'):
        if not catena_cuda.cudnn_enabled:
            # Without cuDNN, 'auto' never asks the GPU.
            assert not _cudnn.plan_policy(numpy.float16).tensor_core
        assert not _cudnn.plan_policy(numpy.float32).tensor_core
        assert not _cudnn.plan_policy(numpy.float64).tensor_core


def test_keys_separate_everything_that_defines_a_plan() -> None:
    policy = _cudnn.PlanPolicy(False, True, False, 8 << 20)
    base = _cudnn.plan_key('conv_fprop', ((2, 3), 'float32'), policy, 0)
    assert base == _cudnn.plan_key('conv_fprop', ((2, 3), 'float32'), policy, 0)
    others = [
        _cudnn.plan_key('conv_dgrad', ((2, 3), 'float32'), policy, 0),
        _cudnn.plan_key('conv_fprop', ((2, 4), 'float32'), policy, 0),
        _cudnn.plan_key('conv_fprop', ((2, 3), 'float16'), policy, 0),
        _cudnn.plan_key('conv_fprop', ((2, 3), 'float32'), policy, 1),
        _cudnn.plan_key('conv_fprop', ((2, 3), 'float32'), policy._replace(deterministic=True), 0),
        _cudnn.plan_key('conv_fprop', ((2, 3), 'float32'), policy._replace(tensor_core=False), 0),
        _cudnn.plan_key('conv_fprop', ((2, 3), 'float32'), policy._replace(autotune=True), 0),
        _cudnn.plan_key('conv_fprop', ((2, 3), 'float32'), policy._replace(workspace_limit=0), 0),
    ]
    assert len({base, *others}) == len(others) + 1
    assert all(hash(key) is not None for key in others)


def _notes() -> types.SimpleNamespace:
    return types.SimpleNamespace(NONDETERMINISTIC='nondeterministic', TENSOR_CORE='tensor_core')


class _RecordingGraph:
    """Stands in for a cudnn.pygraph: records calls, fails where told to.

    It has ``workspaces`` plans (their workspace sizes); building a plan in
    ``unbuildable`` fails as cuDNN fails on a plan the filters excluded.
    """

    def __init__(self, fail_at: str | None = None, workspaces: tuple[int, ...] = (0,),
                 error: type[BaseException] = RuntimeError,
                 unbuildable: tuple[int, ...] = ()) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.fail_at = fail_at
        self.workspaces = workspaces
        self.error = error
        self.unbuildable = unbuildable
        self.selected: int | None = None

    def build_plan_at_index(self, index: int) -> None:
        self.calls.append(('build_plan_at_index', (index,)))
        if index in self.unbuildable:
            raise RuntimeError('Chosen plan index has been deselected.')
        self.selected = index

    def get_execution_plan_count(self) -> int:
        self.calls.append(('get_execution_plan_count', ()))
        return len(self.workspaces)

    def get_workspace_size(self) -> int:
        self.calls.append(('get_workspace_size', ()))
        assert self.selected is not None
        return self.workspaces[self.selected]

    def __getattr__(self, name: str) -> Any:
        def call(*args: Any) -> Any:
            self.calls.append((name, args))
            if name == self.fail_at:
                raise self.error(f'{name} says no')
        return call


class _NotSupported(Exception):
    pass


def _fake_cudnn() -> types.SimpleNamespace:
    return types.SimpleNamespace(
        numerical_note=_notes(), heur_mode=types.SimpleNamespace(A='A', FALLBACK='FALLBACK'),
        cudnnGraphNotSupportedError=_NotSupported)


@pytest.mark.parametrize('deterministic, tensor_core, notes', [
    (False, True, None),
    (True, True, ['nondeterministic']),
    (False, False, ['tensor_core']),
    (True, False, ['nondeterministic', 'tensor_core']),
])
def test_policy_deselects_plans(deterministic: bool, tensor_core: bool, notes: Any) -> None:
    graph = _RecordingGraph()
    policy = _cudnn.PlanPolicy(deterministic, tensor_core, False, 4096)
    _cudnn.apply_policy(graph, _fake_cudnn(), policy)
    expected = [] if notes is None else [('deselect_numeric_notes', (notes,))]
    assert graph.calls == expected + [('deselect_workspace_greater_than', (4096,))]


def _tensor(uid: int) -> types.SimpleNamespace:
    return types.SimpleNamespace(uid=uid)


def _build(graph: _RecordingGraph, monkeypatch: pytest.MonkeyPatch,
           policy: _cudnn.PlanPolicy, buffers: Any = None) -> Any:
    monkeypatch.setattr(_cudnn, 'frontend', _fake_cudnn)
    seen: list[Any] = []

    def make(cudnn: Any, handle: Any) -> Any:
        seen.append((cudnn.heur_mode.A, handle))
        return graph, {'x': _tensor(3), 'y': _tensor(5)}

    result = _cudnn.build(make, policy, 'the handle', buffers)
    assert seen == [('A', 'the handle')]
    return result


def test_build_runs_the_frontend_sequence(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = _RecordingGraph(workspaces=(256, 0))
    plan = _build(graph, monkeypatch, _cudnn.PlanPolicy(True, False, False, 1024))
    assert isinstance(plan, _cudnn.Plan)
    assert plan.uids == {'x': 3, 'y': 5} and plan.workspace_size == 256
    assert [name for name, _ in graph.calls] == [
        'validate', 'build_operation_graph', 'create_execution_plans', 'deselect_numeric_notes',
        'deselect_workspace_greater_than', 'check_support', 'get_execution_plan_count',
        'build_plan_at_index', 'get_workspace_size']
    assert graph.calls[2] == ('create_execution_plans', (['A', 'FALLBACK'],))
    assert graph.selected == 0


def test_build_skips_excluded_and_oversized_plans(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = _RecordingGraph(workspaces=(0, 4096, 512, 0), unbuildable=(0,))
    plan = _build(graph, monkeypatch, _cudnn.PlanPolicy(False, True, False, 1024))
    assert isinstance(plan, _cudnn.Plan) and plan.workspace_size == 512
    assert graph.selected == 2
    assert [args for name, args in graph.calls if name == 'build_plan_at_index'] == [
        (0,), (1,), (2,)]


def test_build_declines_when_no_plan_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = _RecordingGraph(workspaces=(0, 2048), unbuildable=(0,))
    result = _build(graph, monkeypatch, _cudnn.PlanPolicy(False, True, False, 1024))
    assert isinstance(result, _cudnn.Declined)
    assert 'workspace limit of 1024 bytes' in result.reason


def test_autotune_keeps_the_fastest_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = _RecordingGraph(workspaces=(0, 64, 4096, 128, 32), unbuildable=(0,))
    times = {1: 3.0, 2: 0.5, 3: 1.0, 4: 2.0}   # plan 2 is fastest but needs too much workspace
    timed: list[Any] = []

    def time_plan(g: Any, size: int, uids: Any, buffers: Any, handle: Any) -> float:
        timed.append((g.selected, size, dict(uids), buffers, handle))
        return times[g.selected]

    monkeypatch.setattr(_cudnn, 'time_plan', time_plan)
    plan = _build(graph, monkeypatch, _cudnn.PlanPolicy(False, True, True, 1024),
                  buffers={'x': 'bx', 'y': 'by'})
    assert isinstance(plan, _cudnn.Plan) and plan.workspace_size == 128
    assert graph.selected == 3
    assert [(index, size) for index, size, *_ in timed] == [(1, 64), (3, 128), (4, 32)]
    assert timed[0][2:] == ({'x': 3, 'y': 5}, {'x': 'bx', 'y': 'by'}, 'the handle')


@pytest.mark.parametrize('fail_at, error', [
    ('validate', _NotSupported), ('check_support', _NotSupported),
    ('build_operation_graph', RuntimeError), ('create_execution_plans', ValueError),
])
def test_build_turns_refusals_into_declines(monkeypatch: pytest.MonkeyPatch, fail_at: str,
                                            error: type[BaseException]) -> None:
    graph = _RecordingGraph(fail_at=fail_at, error=error)
    result = _build(graph, monkeypatch, _cudnn.PlanPolicy(False, True, False, 1024))
    assert isinstance(result, _cudnn.Declined)
    assert f'{fail_at} says no' in result.reason and error.__name__ in result.reason


def test_build_lets_programming_errors_through(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = _RecordingGraph(fail_at='validate', error=TypeError)
    with pytest.raises(TypeError, match='validate says no'):
        _build(graph, monkeypatch, _cudnn.PlanPolicy(False, True, False, 1024))


# ---------------------------------------------------------------------------
# The cache
# ---------------------------------------------------------------------------

def test_cache_keeps_the_most_recently_used() -> None:
    cache = _cudnn.PlanCache(size=2)
    made: list[str] = []

    def maker(name: str) -> Any:
        def make() -> Any:
            made.append(name)
            return _cudnn.Plan(None, {}, 0)
        return make

    a = cache.get('a', maker('a'))
    assert cache.get('a', maker('a2')) is a
    cache.get('b', maker('b'))
    cache.get('a', maker('a3'))          # 'a' is now the most recent
    cache.get('c', maker('c'))           # drops 'b'
    assert made == ['a', 'b', 'c']
    assert 'b' not in cache and 'a' in cache and 'c' in cache and len(cache) == 2
    cache.clear()
    assert len(cache) == 0


def test_cache_remembers_declines() -> None:
    cache = _cudnn.PlanCache()
    count = []

    def decline() -> Any:
        count.append(1)
        return _cudnn.Declined('no engine')

    first = cache.get('k', decline)
    second = cache.get('k', decline)
    assert first == second == _cudnn.Declined('no engine')
    assert count == [1]


def test_each_thread_has_its_own_cache() -> None:
    here = _cudnn.thread_cache()
    assert _cudnn.thread_cache() is here
    there: list[Any] = []
    thread = threading.Thread(target=lambda: there.append(_cudnn.thread_cache()))
    thread.start()
    thread.join()
    assert there and there[0] is not here


# ---------------------------------------------------------------------------
# How the kernels' graphs lower onto the compiled bindings
# ---------------------------------------------------------------------------

class _FakeBackendTensor:
    def __init__(self, calls: list[Any], **kwargs: Any) -> None:
        self.calls, self.kwargs = calls, kwargs

    def __getattr__(self, name: str) -> Any:
        def setter(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((f'tensor.{name}', args, kwargs))
            return self
        return setter


def _signatures(cudnn: Any, method: str) -> list[dict[str, bool]]:
    """Each overload of a compiled backend_graph method: {parameter: has a default}."""
    doc = getattr(cudnn._pybind_module.backend_graph, method).__doc__
    overloads = []
    for text in set(re.findall(rf'^{method}\((.*?)\) ->', doc, re.M)):
        params = {}
        for part in re.split(r', (?=[a-z_]+:)', text):
            if part != 'self':
                params[part.split(':')[0].strip()] = '=' in part
        overloads.append(params)
    return overloads


def _lowered_calls(cudnn: Any, monkeypatch: pytest.MonkeyPatch, make: Any) -> list[Any]:
    """The calls that lowering ``make``'s graph makes on the (faked) compiled graph."""
    calls: list[Any] = []

    class FakeBackendGraph:
        def __init__(self, **kwargs: Any) -> None:
            calls.append(('__init__', (), kwargs))

        def _make_tensor(self, **kwargs: Any) -> Any:
            calls.append(('_make_tensor', (), kwargs))
            return _FakeBackendTensor(calls, **kwargs)

        def __getattr__(self, name: str) -> Any:
            def op(*args: Any, **kwargs: Any) -> Any:
                calls.append((name, args, kwargs))
                count = {'batchnorm': 5, 'batchnorm_backward': 3}.get(name, 1)
                outs = [_FakeBackendTensor(calls) for _ in range(count)]
                return outs if count > 1 else outs[0]
            return op

    monkeypatch.setattr(cudnn._pybind_module, 'backend_graph', FakeBackendGraph)
    graph, _ = make(cudnn, cudnn.Handle(4096, 0, 0))
    graph._lower_to_cpp()  # the frontend's own lowering, onto the fake
    return calls


def _graph_makers() -> dict[str, Any]:
    from catena.functions.normalization import _common as norm
    from catena_cuda.kernels.connection import _cudnn_conv
    from catena_cuda.kernels.normalization import batch_normalization as bn

    conv = _cudnn_conv.fprop_geometry((2, 4, 7, 9), (6, 2, 3, 3), (2, 1), (1, 2), (1, 2), 2,
                                      False, numpy.float16)
    view = norm.view_for((4, 3, 5, 5), (0, 2, 3), (1,))
    bn_geometry = bn.geometry(view, numpy.float32, numpy.float32, training=True)
    return {'conv_fprop': _cudnn_conv.graph_maker('fprop', conv),
            'conv_dgrad': _cudnn_conv.graph_maker('dgrad', conv),
            'conv_wgrad': _cudnn_conv.graph_maker('wgrad', conv),
            'batchnorm': bn.training_graph(bn_geometry),
            'batchnorm_inference': bn.inference_graph(bn_geometry),
            'batchnorm_backward': bn.backward_graph(bn_geometry)}


@pytest.mark.parametrize('method', ['conv_fprop', 'conv_dgrad', 'conv_wgrad', 'batchnorm',
                                    'batchnorm_inference', 'batchnorm_backward'])
def test_graphs_lower_onto_the_binding_signatures(monkeypatch: pytest.MonkeyPatch,
                                                  method: str) -> None:
    cudnn = pytest.importorskip('cudnn')
    overloads = _signatures(cudnn, method)
    assert overloads
    calls = _lowered_calls(cudnn, monkeypatch, _graph_makers()[method])
    init = [kwargs for name, _, kwargs in calls if name == '__init__']
    assert len(init) == 1 and init[0]['handle'] == 4096
    ops = [(args, kwargs) for name, args, kwargs in calls if name == method]
    assert len(ops) == 1, calls
    args, kwargs = ops[0]
    assert not args
    assert any(set(kwargs) <= set(params)
               and all(name in kwargs for name, default in params.items() if not default)
               for params in overloads), (kwargs, overloads)
    outputs = [args for name, args, _ in calls if name == 'tensor.set_output']
    assert outputs and all(args == (True,) for args in outputs)


# ---------------------------------------------------------------------------
# GPU: handles and streams
# ---------------------------------------------------------------------------

@pytest.mark.gpu
@needs_cudnn
def test_one_handle_per_thread_bound_to_the_current_stream() -> None:
    cupy = catena_cuda.cupy
    handle = _cudnn.current_handle(0)
    assert _cudnn.current_handle(0) is handle
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        assert _cudnn.current_handle(0) is handle
        assert handle.stream == stream.ptr
    assert _cudnn.current_handle(0).stream == cupy.cuda.get_current_stream().ptr
    other: list[Any] = []
    thread = threading.Thread(target=lambda: other.append(_cudnn.current_handle(0)))
    thread.start()
    thread.join()
    assert other and other[0] is not handle
