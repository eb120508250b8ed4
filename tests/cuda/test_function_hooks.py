"""catena-cuda's function hooks: CupyMemoryProfileHook and CUDAProfileHook.

The CPU tests replace the module's CuPy access functions with fakes: the
hooks' bookkeeping, summary and report are plain Python. The GPU tests run
the hooks on CuPy arrays with the real memory pool and NVTX.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import FunctionNode, Variable

catena_cuda = pytest.importorskip('catena_cuda')
from catena_cuda import function_hooks as fh  # noqa: E402

GPU = catena_cuda.available
needs_gpu = pytest.mark.skipif(not GPU, reason='needs CuPy and a CUDA GPU')
needs_no_gpu = pytest.mark.skipif(GPU, reason='checks the behaviour without a GPU')


# ---------------------------------------------------------------------------
# Fakes
# ---------------------------------------------------------------------------

class FakeCounter:
    """Stands for the CuPy memory hook: the test's nodes add bytes to it."""

    def __init__(self, name):
        self.name = name
        self.used_bytes = 0
        self.acquired_bytes = 0
        self.entered = 0
        self.exited = 0

    def __enter__(self):
        self.entered += 1
        return self

    def __exit__(self, *args):
        self.exited += 1

    @property
    def installed(self):
        return self.entered - self.exited


@pytest.fixture
def counters(monkeypatch):
    made = []

    def new_counter(name):
        counter = FakeCounter(name)
        made.append(counter)
        return counter

    monkeypatch.setattr(fh, '_memory_counter', new_counter)
    return made


class Alloc(FunctionNode):
    """Identity that 'allocates' bytes in forward and in backward (applying AllocGrad)."""

    counter = None

    def __init__(self, forward=(0, 0), backward=(0, 0), inner=(0, 0)):
        self.forward_bytes = forward
        self.backward_bytes = backward
        self.inner_bytes = inner

    def forward(self, inputs):
        _take(self.forward_bytes)
        return inputs[0].copy(),

    def backward(self, indexes, grad_outputs):
        _take(self.backward_bytes)
        return AllocGrad(self.inner_bytes).apply(grad_outputs)


class AllocGrad(FunctionNode):
    def __init__(self, taken):
        self.taken = taken

    def forward(self, inputs):
        _take(self.taken)
        return inputs[0].copy(),


class Boom(FunctionNode):
    def forward(self, inputs):
        raise ValueError('boom')


def _take(amount):
    used, acquired = amount
    counter = Alloc.counter
    if counter is not None:
        counter.used_bytes += used
        counter.acquired_bytes += acquired


@pytest.fixture
def hook(counters):
    made = fh.CupyMemoryProfileHook()
    Alloc.counter = counters[-1]
    yield made
    Alloc.counter = None


def f32(*shape):
    return np.ones(shape, np.float32)


# ---------------------------------------------------------------------------
# CupyMemoryProfileHook on the CPU
# ---------------------------------------------------------------------------

def test_records_forward_and_backward_bytes(hook):
    x = Variable(f32(3))
    with hook:
        y, = Alloc(forward=(1024, 512), backward=(256, 0), inner=(2048, 2048)).apply((x,))
        y.grad = f32(3)
        y.backward()
    assert hook.call_history == [
        ('Alloc', 1024, 512, 0),          # forward
        ('AllocGrad', 2048, 2048, 1),     # applied inside Alloc's backward
        ('Alloc', 256 + 2048, 2048, 0),   # backward, including its inner call
    ]
    assert hook.total_used_bytes() == 1024 + 256 + 2048
    assert hook.total_acquired_bytes() == 512 + 2048


def test_summary_adds_up_each_function_in_first_call_order(hook):
    x = Variable(f32(2))
    with hook:
        h, = Alloc(forward=(100, 10)).apply((x,))
        F.identity(h)
        Alloc(forward=(300, 0)).apply((h,))
    assert list(hook.summary()) == ['Alloc', 'Identity']
    assert hook.summary()['Alloc'] == {'used_bytes': 400, 'acquired_bytes': 10,
                                       'occurrence': 2}
    assert hook.summary()['Identity'] == {'used_bytes': 0, 'acquired_bytes': 0,
                                          'occurrence': 1}


def test_history_keeps_names_only(hook):
    with hook:
        Alloc(forward=(8, 8)).apply((Variable(f32(1)),))
    name, used, acquired, depth = hook.call_history[0]
    assert (name, used, acquired, depth) == ('Alloc', 8, 8, 0)
    assert all(type(item) in (str, int) for item in hook.call_history[0])


def test_counter_installed_while_registered(hook, counters):
    counter = counters[-1]
    assert counter.installed == 0
    with hook:
        assert counter.installed == 1
    assert counter.installed == 0
    assert counter.name.startswith('catena.CupyMemoryProfileHook-')


def test_counter_installed_once_for_global_and_local_registrations(hook, counters):
    counter = counters[-1]
    node_a, node_b = Alloc(forward=(1, 0)), Alloc(forward=(2, 0))
    node_a.add_hook(hook)
    node_b.add_hook(hook)
    with hook:
        assert (counter.entered, counter.installed) == (1, 1)
    assert counter.installed == 1
    node_a.delete_hook(hook.name)
    assert counter.installed == 1
    node_b.delete_hook(hook.name)
    assert (counter.entered, counter.exited) == (1, 1)


def test_two_hooks_get_counters_of_their_own(counters):
    first = fh.CupyMemoryProfileHook()
    second = fh.CupyMemoryProfileHook()
    assert len(counters) == 2 and counters[0].name != counters[1].name
    assert first._counter is counters[0] and second._counter is counters[1]


def test_call_left_open_by_an_error_is_dropped(hook):
    x = Variable(f32(2))
    with pytest.raises(ValueError, match='boom'), hook:
        Boom().apply((x,))
    assert hook._running == []
    with hook:
        Alloc(forward=(64, 0)).apply((x,))
    assert hook.call_history == [('Alloc', 64, 0, 0)]
    assert hook.total_used_bytes() == 64


def _report(hook, **kwargs):
    out = io.StringIO()
    hook.print_report(file=out, **kwargs)
    return out.getvalue().splitlines()


def _filled(hook):
    x = Variable(f32(2))
    with hook:
        Alloc(forward=(5 * 1024 ** 3 + 160 * 1024 ** 2, 180 * 1024 ** 2)).apply((x,))
        F.identity(x)
        AllocGrad((617 * 1024 + 992, 351 * 1024)).apply((x,))
    return hook


def test_print_report_auto_aligns_each_column_to_its_largest(hook):
    assert _report(_filled(hook)) == [
        'FunctionName  UsedBytes  AcquiredBytes  Occurrence',
        '       Alloc     5.16GB       180.00MB           1',
        '    Identity     0.00GB         0.00MB           1',
        '   AllocGrad     0.00GB         0.34MB           1',
    ]


def test_print_report_auto_foreach_chooses_each_unit(hook):
    assert _report(_filled(hook), unit='auto_foreach') == [
        'FunctionName  UsedBytes  AcquiredBytes  Occurrence',
        '       Alloc     5.16GB       180.00MB           1',
        '    Identity      0.00B          0.00B           1',
        '   AllocGrad   617.97KB       351.00KB           1',
    ]


def test_print_report_fixed_unit(hook):
    lines = _report(_filled(hook), unit='KB')
    assert lines[1].split() == ['Alloc', '5406720.00KB', '184320.00KB', '1']
    assert lines[3].split() == ['AllocGrad', '617.97KB', '351.00KB', '1']


def test_print_report_rejects_an_unknown_unit(hook):
    with pytest.raises(ValueError, match="unit must be 'auto', 'auto_foreach' or one of B, KB"):
        hook.print_report(unit='KiB', file=io.StringIO())


def test_print_report_defaults_to_the_current_stdout(hook, capsys):
    with hook:
        Alloc(forward=(2048, 0)).apply((Variable(f32(1)),))
    hook.print_report()
    assert capsys.readouterr().out.splitlines() == [
        'FunctionName  UsedBytes  AcquiredBytes  Occurrence',
        '       Alloc     2.00KB          0.00B           1',
    ]


def test_print_report_of_nothing_prints_the_header(hook):
    assert _report(hook) == ['FunctionName  UsedBytes  AcquiredBytes  Occurrence']


@pytest.mark.parametrize('size, expected', [
    (0, (1, 'B')), (1023, (1, 'B')), (1024, (1024, 'KB')),
    (5 * 1024 ** 3, (1024 ** 3, 'GB')), (3 * 1024 ** 8, (1024 ** 7, 'ZB')),
])
def test_choose_unit(size, expected):
    assert fh.choose_unit(size) == expected


def test_real_counter_follows_cupy_memory_hook_protocol():
    # Registering a CuPy memory hook and calling its callbacks needs no GPU.
    cupy = pytest.importorskip('cupy')
    from cupy.cuda import memory_hook

    counter = fh._counter_class(cupy.cuda.memory_hook.MemoryHook)('catena.test-counter')
    assert isinstance(counter, memory_hook.MemoryHook)
    fh._start_counting(counter)
    try:
        assert memory_hook.get_memory_hooks()['catena.test-counter'] is counter
        counter.malloc_preprocess(device_id=0, size=100, mem_size=512)
        counter.alloc_preprocess(device_id=0, mem_size=512)
        counter.malloc_preprocess(device_id=0, size=1000, mem_size=1024)
        counter.malloc_postprocess(device_id=0, size=1000, mem_size=1024, mem_ptr=0,
                                   pmem_id=0)
    finally:
        fh._stop_counting(counter)
    assert 'catena.test-counter' not in memory_hook.get_memory_hooks()
    assert fh._read_counter(counter) == (1536, 512)


def test_cupy_nvtx_functions_exist():
    cupy = pytest.importorskip('cupy')
    assert callable(cupy.cuda.nvtx.RangePush) and callable(cupy.cuda.nvtx.RangePop)
    assert isinstance(cupy.cuda.nvtx.available, bool)


@needs_no_gpu
def test_memory_hook_needs_cuda():
    with pytest.raises(RuntimeError, match='CUDA is not available'):
        fh.CupyMemoryProfileHook()


def test_import_does_not_import_cupy():
    import subprocess
    import sys

    code = ('import sys, catena_cuda.function_hooks; '
            'print("cupy" in sys.modules)')
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == 'False'


# ---------------------------------------------------------------------------
# CUDAProfileHook on the CPU
# ---------------------------------------------------------------------------

@pytest.fixture
def nvtx(monkeypatch):
    calls = []
    monkeypatch.setattr(fh, '_check_nvtx', lambda: calls.append('check'))
    monkeypatch.setattr(fh, '_range_push', lambda message: calls.append(f'push {message}'))
    monkeypatch.setattr(fh, '_range_pop', lambda: calls.append('pop'))
    return calls


def test_profile_hook_brackets_forward_and_backward(nvtx):
    x = Variable(f32(3))
    with fh.CUDAProfileHook():
        y, = Alloc().apply((x,))
        y.grad = f32(3)
        y.backward()
    assert nvtx == ['check',
                    'push Alloc.forward', 'pop',
                    'push Alloc.backward', 'push AllocGrad.forward', 'pop', 'pop']


def test_profile_hook_uses_the_label(nvtx):
    with fh.CUDAProfileHook():
        F.relu(Variable(f32(2)))
    assert nvtx[1:] == ['push ReLU.forward', 'pop']


def test_profile_hook_closes_ranges_left_open(nvtx):
    x = Variable(f32(2))
    with pytest.raises(ValueError, match='boom'), fh.CUDAProfileHook():
        Alloc().apply((x,))
        Boom().apply((x,))
    assert nvtx == ['check', 'push Alloc.forward', 'pop', 'push Boom.forward', 'pop']


@needs_no_gpu
def test_profile_hook_needs_cuda():
    with pytest.raises(RuntimeError, match='CUDA is not available'):
        fh.CUDAProfileHook()


# ---------------------------------------------------------------------------
# On a GPU
# ---------------------------------------------------------------------------

@pytest.mark.gpu
@needs_gpu
def test_memory_hook_counts_cupy_pool_allocations():
    import cupy

    pool = cupy.get_default_memory_pool()
    rng = np.random.default_rng(0)
    x = Variable(cupy.asarray(rng.standard_normal((256, 64), dtype=np.float32)))
    w = Variable(cupy.asarray(rng.standard_normal((1024, 64), dtype=np.float32)))
    with cupy.cuda.using_allocator(pool.malloc):
        pool.free_all_blocks()
        hook = fh.CupyMemoryProfileHook()
        with hook:
            y = F.linear(x, w)
            loss = F.sum(y)
            loss.backward()
    out_bytes = 256 * 1024 * 4
    forward = [entry for entry in hook.call_history if entry[0] == 'LinearFunction']
    assert len(forward) == 2  # forward and backward
    name, used, acquired, depth = forward[0]
    assert depth == 0
    assert used >= out_bytes
    assert acquired >= out_bytes  # the cache was emptied: the output needed new memory
    assert hook.total_used_bytes() == sum(u for _, u, _, d in hook.call_history if d == 0)
    assert hook.total_acquired_bytes() == sum(a for _, _, a, d in hook.call_history
                                              if d == 0)
    assert hook.total_acquired_bytes() <= hook.total_used_bytes()
    assert x.grad.shape == x.shape and w.grad.shape == w.shape
    from cupy.cuda import memory_hook

    assert not any(key.startswith('catena.') for key in memory_hook.get_memory_hooks())


@pytest.mark.gpu
@needs_gpu
def test_memory_hook_report_on_gpu():
    import cupy

    hook = fh.CupyMemoryProfileHook()
    x = Variable(cupy.ones((128, 128), np.float32))
    with cupy.cuda.using_allocator(cupy.get_default_memory_pool().malloc), hook:
        F.relu(x)
    lines = _report(hook)
    assert lines[0].split() == ['FunctionName', 'UsedBytes', 'AcquiredBytes', 'Occurrence']
    assert lines[1].split()[0] == 'ReLU' and lines[1].split()[-1] == '1'
    assert hook.summary()['ReLU']['used_bytes'] >= 128 * 128 * 4


@pytest.mark.gpu
@needs_gpu
def test_profile_hook_calls_nvtx_in_balanced_pairs(monkeypatch):
    import cupy

    pushed = []
    popped = []
    real_push, real_pop = fh._range_push, fh._range_pop

    def push(message):
        pushed.append(message)
        real_push(message)

    def pop():
        popped.append(1)
        real_pop()

    monkeypatch.setattr(fh, '_range_push', push)
    monkeypatch.setattr(fh, '_range_pop', pop)
    x = Variable(cupy.arange(6, dtype=np.float32).reshape(2, 3))
    with fh.CUDAProfileHook():
        loss = F.sum(F.tanh(x))
        loss.backward()
    assert 'Tanh.forward' in pushed and 'Tanh.backward' in pushed
    assert 'Sum.forward' in pushed
    assert len(pushed) == len(popped)
    cupy.testing.assert_allclose(x.grad, 1 - cupy.tanh(x.array) ** 2, rtol=1e-6)


@pytest.mark.gpu
@needs_gpu
def test_hooks_are_function_hooks():
    assert isinstance(fh.CupyMemoryProfileHook(), catena.FunctionHook)
    assert isinstance(fh.CUDAProfileHook(), catena.FunctionHook)


def test_hooks_are_served_as_catena_function_hooks() -> None:
    import catena.function_hooks
    from catena_cuda import function_hooks

    assert catena.function_hooks.CupyMemoryProfileHook is function_hooks.CupyMemoryProfileHook
    assert catena.function_hooks.CUDAProfileHook is function_hooks.CUDAProfileHook
