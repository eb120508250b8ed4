"""CuPy's memory pools (catena_cuda._memory) and exact moves between host and GPU.

The setup is checked on the CPU with a fake ``cupy`` module (and with the
real one where it imports); the round trips of models and arrays need a GPU,
and run on the ``'@fake'`` device on the CPU to check the test's own logic.
"""

from __future__ import annotations

import threading
import time
import types

import numpy as np
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena import backend

catena_cuda = pytest.importorskip('catena_cuda')
from catena_cuda import _memory  # noqa: E402

GPU = catena_cuda.available
needs_gpu = pytest.mark.skipif(not GPU, reason='needs CuPy and a CUDA GPU')


# ---------------------------------------------------------------------------
# setup_memory_pools with a fake CuPy
# ---------------------------------------------------------------------------

@pytest.fixture
def fresh():
    """Lets a test see the first call; restores the process's own record after it."""
    saved = _memory._pools
    _memory._reset()
    yield
    _memory._pools = saved


class FakePool:
    def malloc(self, size):
        raise AssertionError('nothing is allocated during the setup')


def _fail(*args):
    raise AssertionError('the setup must not change the allocators')


def user_allocator(size):
    raise AssertionError('nothing is allocated during the setup')


def fake_cupy(allocator='pool', with_getter=True):
    """A stand-in for :mod:`cupy` counting the calls the setup makes."""
    pool, pinned = FakePool(), FakePool()
    calls = {'memory_pool': 0, 'pinned': 0, 'get_allocator': 0}
    raw = object()

    def get_default_memory_pool():
        calls['memory_pool'] += 1
        time.sleep(0.001)  # widens the window for the threads test
        return pool

    def get_default_pinned_memory_pool():
        calls['pinned'] += 1
        return pinned

    def get_allocator():
        calls['get_allocator'] += 1
        return {'pool': pool.malloc, 'raw': raw, 'other pool': FakePool().malloc,
                'user': user_allocator}[allocator]

    cuda = types.SimpleNamespace(set_allocator=_fail, set_pinned_memory_allocator=_fail,
                                 memory=types.SimpleNamespace(_malloc=raw))
    if with_getter:
        cuda.get_allocator = get_allocator
    module = types.SimpleNamespace(get_default_memory_pool=get_default_memory_pool,
                                   get_default_pinned_memory_pool=get_default_pinned_memory_pool,
                                   cuda=cuda)
    return module, pool, pinned, calls


def test_default_pools_are_kept(fresh):
    cupy, pool, pinned, _ = fake_cupy('pool')
    pools = _memory.setup_memory_pools(cupy)
    assert pools.memory_pool is pool and pools.pinned_memory_pool is pinned
    assert pools.allocator == 'pool' and pools.uses_pool
    assert 'the default memory pool' in pools.describe()


def test_setup_runs_once(fresh):
    cupy, _, _, calls = fake_cupy('pool')
    first = _memory.setup_memory_pools(cupy)
    other, _, _, other_calls = fake_cupy('user')
    assert _memory.setup_memory_pools(cupy) is first
    assert _memory.setup_memory_pools(other) is first
    assert calls == {'memory_pool': 1, 'pinned': 1, 'get_allocator': 1}
    assert other_calls == {'memory_pool': 0, 'pinned': 0, 'get_allocator': 0}


def test_setup_runs_once_across_threads(fresh):
    cupy, _, _, calls = fake_cupy('pool')
    barrier = threading.Barrier(8)
    results = []

    def first_use():
        barrier.wait()
        results.append(_memory.setup_memory_pools(cupy))

    threads = [threading.Thread(target=first_use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 8 and all(result is results[0] for result in results)
    assert calls['memory_pool'] == 1


def test_user_allocator_is_kept_and_named(fresh):
    cupy, _, _, _ = fake_cupy('user')
    pools = _memory.setup_memory_pools(cupy)  # set_allocator would raise
    assert not pools.uses_pool
    assert pools.allocator.endswith('user_allocator')
    assert 'user_allocator, set by the program and kept' in pools.describe()


def test_disabled_pool_is_kept(fresh):
    pools = _memory.setup_memory_pools(fake_cupy('raw')[0])
    assert not pools.uses_pool
    assert pools.allocator.startswith('no pool')


def test_another_pool_is_not_the_default_one(fresh):
    pools = _memory.setup_memory_pools(fake_cupy('other pool')[0])
    assert pools.allocator == 'FakePool.malloc' and not pools.uses_pool


def test_cupy_without_get_allocator(fresh):
    pools = _memory.setup_memory_pools(fake_cupy(with_getter=False)[0])
    assert pools.allocator == 'unknown' and not pools.uses_pool


def test_with_the_real_cupy_module(fresh):
    # Reading the pools and the allocator needs no GPU.
    cupy = pytest.importorskip('cupy')
    pool = cupy.get_default_memory_pool()
    with cupy.cuda.using_allocator(pool.malloc):
        pools = _memory.setup_memory_pools(cupy)
    assert pools.memory_pool is pool
    assert pools.pinned_memory_pool is cupy.get_default_pinned_memory_pool()
    assert pools.uses_pool
    _memory._reset()
    with cupy.cuda.using_allocator(None):
        assert _memory.setup_memory_pools(cupy).allocator.startswith('no pool')


# ---------------------------------------------------------------------------
# Round trips of a model: bitwise, parameters, gradients and persistents
# ---------------------------------------------------------------------------

class Net(catena.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(2, 3, 3, pad=1)
            self.bn = L.BatchNormalization(3)
            self.fc = L.Linear(3 * 4 * 4, 5)
            with catena.using_config('dtype', np.float16):
                self.fc16 = L.Linear(5, 2)
            with catena.using_config('dtype', np.float64):
                self.fc64 = L.Linear(2, 2, nobias=True)


def trained_net():
    """A Net with non-default statistics and gradients holding NaN, -0.0 and subnormals."""
    rng = np.random.default_rng(0)
    net = Net()
    for step in range(3):  # moves the running statistics away from 0 and 1
        x = rng.standard_normal((4, 2, 4, 4)).astype(np.float32)
        net.bn(net.conv(x), finetune=step < 2)  # finetune counts the calls in N
    for _, param in net.namedparams():
        grad = rng.standard_normal(param.shape).astype(param.dtype)
        flat = grad.reshape(-1)
        flat[0] = np.nan
        flat[-1] = -0.0
        if flat.size > 2:
            flat[1] = np.finfo(param.dtype).smallest_subnormal
        param.grad = grad
    return net


def snapshot(model):
    """Every array of ``model`` (by path) and its scalar persistents."""
    arrays, scalars = {}, {}
    for path, param in model.namedparams():
        arrays[path] = param.array
        arrays[path + '@grad'] = param.grad
    for path, link in model.namedlinks():
        for name in link._persistent:
            value = getattr(link, name)
            if isinstance(value, (int, float)):
                scalars[f'{path}/{name}'] = value
            else:
                arrays[f'{path}/{name}'] = value
    return arrays, scalars


def bits(array):
    """``(dtype, shape, bytes)`` of a NumPy array: equal exactly when bitwise equal."""
    assert type(array) is np.ndarray
    return array.dtype.str, array.shape, np.ascontiguousarray(array).tobytes()


def host_bits(arrays):
    return {path: bits(backend.get_device_from_array(a).to_numpy(a))
            for path, a in arrays.items()}


DEVICES = [
    pytest.param('@fake', id='fake'),
    pytest.param('@cupy:0', id='cupy', marks=[pytest.mark.gpu, needs_gpu]),
]


@pytest.mark.parametrize('spec', DEVICES)
def test_model_round_trip_is_bitwise_exact(spec):
    net = trained_net()
    before, scalars = snapshot(net)
    assert {path.rsplit('/', 1)[-1] for path in before} >= {'avg_mean', 'avg_var'}
    expected = host_bits(before)
    assert scalars['/bn/N'] == 2

    device = catena.get_device(spec)
    net.to_device(spec)
    assert net.device == device
    there, there_scalars = snapshot(net)
    assert there.keys() == before.keys() and there_scalars == scalars
    for path, array in there.items():
        assert backend.get_device_from_array(array) == device, path
    assert host_bits(there) == expected

    net.to_device('@numpy')
    back, back_scalars = snapshot(net)
    assert back_scalars == scalars
    assert all(type(array) is np.ndarray for array in back.values())
    assert host_bits(back) == expected


@pytest.mark.gpu
@needs_gpu
def test_model_to_gpu_and_to_cpu_methods():
    import cupy

    net = trained_net()
    expected = host_bits(snapshot(net)[0])
    net.to_gpu(0)
    arrays, _ = snapshot(net)
    assert all(isinstance(a, cupy.ndarray) and a.device.id == 0 for a in arrays.values())
    assert {path: bits(a.get()) for path, a in arrays.items()} == expected
    net.to_cpu()
    assert host_bits(snapshot(net)[0]) == expected
    # Moving to where the arrays already are keeps them.
    net.to_gpu(0)
    first = snapshot(net)[0]
    net.to_device('@cupy:0')
    assert all(snapshot(net)[0][path] is array for path, array in first.items())


@pytest.mark.gpu
@needs_gpu
def test_moved_statistics_drive_test_mode_on_gpu():
    import cupy

    net = trained_net()
    x = np.random.default_rng(1).standard_normal((4, 2, 4, 4)).astype(np.float32)
    with catena.using_config('train', False):
        expected = net.bn(net.conv(x)).array
    net.to_device('@cupy:0')
    with catena.using_config('train', False):
        actual = net.bn(net.conv(cupy.asarray(x))).array
    # Test mode uses the moved running statistics (the tolerance allows TF32
    # convolutions; statistics left at their defaults would miss by ~0.1).
    np.testing.assert_allclose(actual.get(), expected, rtol=1e-2, atol=1e-2)


# ---------------------------------------------------------------------------
# to_gpu, to_cpu and copy keep dtype, shape and values
# ---------------------------------------------------------------------------

def host_arrays():
    rng = np.random.default_rng(2)
    out = []
    for dtype in (np.float16, np.float32, np.float64, np.complex64, np.int8, np.int32,
                  np.int64, np.uint8, np.bool_):
        for shape in ((), (0,), (5,), (2, 3, 4)):
            values = rng.standard_normal(shape) * 100
            array = np.asarray(values).astype(dtype)
            if array.dtype.kind == 'f' and array.size > 2:
                array.reshape(-1)[:2] = (np.nan, -0.0)
            out.append(array)
    base = rng.standard_normal((6, 8)).astype(np.float32)
    out.append(base.T)              # Fortran order
    out.append(base[::2, 1::3])     # strided view
    return out


@pytest.mark.gpu
@needs_gpu
def test_to_gpu_and_to_cpu_keep_dtype_shape_and_values():
    import cupy

    for array in host_arrays():
        on_gpu = catena_cuda.to_gpu(array)
        assert isinstance(on_gpu, cupy.ndarray) and on_gpu.device.id == 0
        assert on_gpu.dtype == array.dtype and on_gpu.shape == array.shape
        back = catena_cuda.to_cpu(on_gpu)
        assert type(back) is np.ndarray
        assert bits(back) == bits(array)
        assert catena_cuda.to_gpu(on_gpu) is on_gpu  # already there


@pytest.mark.gpu
@needs_gpu
def test_to_gpu_and_to_cpu_map_lists_tuples_and_none():
    import cupy

    arrays = host_arrays()[:3]
    sent = catena_cuda.to_gpu([arrays[0], (arrays[1], None), arrays[2]])
    assert isinstance(sent, list) and isinstance(sent[1], tuple) and sent[1][1] is None
    assert all(isinstance(a, cupy.ndarray) for a in (sent[0], sent[1][0], sent[2]))
    back = catena_cuda.to_cpu(sent)
    assert [bits(back[0]), bits(back[1][0]), bits(back[2])] == [bits(a) for a in arrays]
    variable = catena.Variable(cupy.asarray(arrays[2]))
    assert bits(catena_cuda.to_cpu(variable)) == bits(arrays[2])


@pytest.mark.gpu
@needs_gpu
def test_copy_keeps_dtype_shape_and_values():
    import cupy

    for array in host_arrays():
        source = cupy.asarray(array)
        copied = catena_cuda.copy(source)
        assert copied is not source and copied.dtype == source.dtype
        assert copied.shape == source.shape
        if source.size:
            assert copied.data.ptr != source.data.ptr
        assert bits(copied.get()) == bits(array)
        out = cupy.empty(array.shape, array.dtype)
        assert catena_cuda.copy(source, out=out) is out
        assert bits(out.get()) == bits(array)
        elsewhere = catena_cuda.copy(source, out_device=0)
        assert elsewhere.device.id == 0 and bits(elsewhere.get()) == bits(array)


@pytest.mark.gpu
@needs_gpu
def test_moving_a_model_allocates_from_the_default_pool():
    import cupy

    pools = _memory.setup_memory_pools(cupy)
    assert pools.memory_pool is cupy.get_default_memory_pool()
    assert catena_cuda.memory_pool is pools.memory_pool
    if not pools.uses_pool:
        pytest.skip(f'the program installed another allocator: {pools.allocator}')
    net = trained_net()
    moved = sum(a.nbytes for a in snapshot(net)[0].values())
    used = pools.memory_pool.used_bytes()
    net.to_device('@cupy:0')
    assert pools.memory_pool.used_bytes() - used >= moved
    # The model's forward runs on the pooled arrays.
    y = F.sum(net.fc(net.bn(net.conv(cupy.ones((1, 2, 4, 4), np.float32)))))
    assert bool(cupy.isfinite(y.array))
