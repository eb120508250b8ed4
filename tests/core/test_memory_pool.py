"""The CPU memory pool (catena._cpool): NumPy's data allocator after ``import catena``.

It must hand out memory that behaves exactly like NumPy's (zeros from
``np.zeros``, contents kept by ``resize``), reuse freed large buffers,
respect its limit, and stay out of the way when turned off.
"""

import contextvars
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from catena import _memory_pool

try:
    from numpy._core.multiarray import get_handler_name
except ImportError:  # NumPy 1.26
    from numpy.core.multiarray import get_handler_name

needs_pool = pytest.mark.skipif(not _memory_pool.in_use(),
                                reason=f'pool: {_memory_pool.description()}')

LARGE = 1 << 20  # bytes: pooled
SMALL = 1 << 12  # bytes: straight to malloc


@pytest.fixture
def pool():
    """An empty pool with the default limit, restored afterwards."""
    limit = _memory_pool.stats()['limit_bytes']
    _memory_pool.free_all_blocks()
    _memory_pool.set_limit(64 << 20)
    yield _memory_pool
    _memory_pool.free_all_blocks()
    _memory_pool.set_limit(limit)


def _address(array):
    return array.__array_interface__['data'][0]


@needs_pool
def test_arrays_made_after_import_use_the_pool():
    assert get_handler_name(np.empty(LARGE, np.uint8)) == 'catena_pool'
    assert get_handler_name(np.ones(3)) == 'catena_pool'


@needs_pool
def test_a_freed_large_buffer_serves_the_next_request_of_its_size(pool):
    first = np.empty(LARGE, np.uint8)
    address = _address(first)
    del first
    assert pool.stats()['held_blocks'] == 1
    hits = pool.stats()['hits']
    second = np.empty(LARGE, np.uint8)
    assert _address(second) == address
    assert pool.stats()['hits'] == hits + 1
    assert pool.stats()['held_blocks'] == 0


@needs_pool
def test_a_smaller_request_takes_a_block_only_within_an_eighth_of_its_size(pool):
    del_me = np.empty(LARGE, np.uint8)
    address = _address(del_me)
    del del_me
    much_smaller = np.empty(LARGE // 2, np.uint8)
    assert _address(much_smaller) != address
    slightly_smaller = np.empty(LARGE - LARGE // 16, np.uint8)
    assert _address(slightly_smaller) == address


@needs_pool
def test_small_buffers_are_not_held(pool):
    del_me = np.empty(SMALL, np.uint8)
    del del_me
    assert pool.stats()['held_blocks'] == 0


@needs_pool
@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64, np.int64])
def test_zeros_from_a_reused_buffer_are_zeros(pool, dtype):
    dirty = np.full(LARGE // np.dtype(dtype).itemsize, 7, dtype)
    address = _address(dirty)
    del dirty
    clean = np.zeros(LARGE // np.dtype(dtype).itemsize, dtype)
    assert _address(clean) == address
    assert not clean.any()


@needs_pool
@pytest.mark.parametrize('old, new', [(LARGE, 3 * LARGE), (LARGE, SMALL), (SMALL, LARGE)])
def test_resize_keeps_the_contents(pool, old, new):
    array = np.arange(old // 8, dtype=np.int64)
    array.resize(new // 8, refcheck=False)
    kept = min(old, new) // 8
    np.testing.assert_array_equal(array[:kept], np.arange(kept))
    array[:] = 1  # the whole new size is writable
    del array
    reused = np.zeros(new // 8, np.int64)
    assert not reused.any()


@needs_pool
def test_the_limit_bounds_what_is_held_and_the_oldest_block_leaves_first(pool):
    pool.set_limit(4 * LARGE)
    arrays = [np.empty(LARGE, np.uint8) for _ in range(6)]
    addresses = [_address(a) for a in arrays]
    for index in range(len(arrays)):  # freed first to last
        arrays[index] = None
    stats = pool.stats()
    assert stats['held_blocks'] == 4
    assert stats['held_bytes'] <= 4 * LARGE
    reused = [np.empty(LARGE, np.uint8) for _ in range(4)]
    assert sorted(map(_address, reused)) == sorted(addresses[2:])


@needs_pool
def test_a_block_over_half_the_limit_is_never_held(pool):
    pool.set_limit(2 * LARGE)
    del_me = np.empty(LARGE + 4096, np.uint8)
    del del_me
    assert pool.stats()['held_blocks'] == 0


@needs_pool
def test_lowering_the_limit_frees_what_exceeds_it(pool):
    arrays = [np.empty(LARGE, np.uint8) for _ in range(3)]
    del arrays[:]
    assert pool.stats()['held_blocks'] == 3
    pool.set_limit(LARGE * 2)
    assert pool.stats()['held_bytes'] <= 2 * LARGE
    pool.set_limit(0)
    assert pool.stats()['held_blocks'] == 0


@needs_pool
def test_free_all_blocks_reports_what_it_freed(pool):
    del_me = np.empty(LARGE, np.uint8)
    del del_me
    assert pool.free_all_blocks() >= LARGE
    assert pool.stats()['held_bytes'] == 0
    assert pool.free_all_blocks() == 0


@pytest.mark.parametrize('limit', [-1, 1.5, True, '3'])
def test_set_limit_rejects_what_is_not_a_byte_count(limit):
    with pytest.raises(ValueError, match='limit_bytes must be a non-negative int'):
        _memory_pool.set_limit(limit)


@needs_pool
def test_threads_that_share_the_context_allocate_and_free_concurrently(pool):
    pool.set_limit(8 * LARGE)
    errors = []

    def churn(seed):
        rng = np.random.default_rng(seed)
        try:
            for _ in range(300):
                sizes = rng.integers(LARGE // 4, 2 * LARGE, size=3) // 8
                arrays = [np.full(int(n), seed, np.int64) for n in sizes]
                for array, n in zip(arrays, sizes):
                    if array.size != n or not (array == seed).all():
                        errors.append(seed)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=contextvars.copy_context().run, args=(churn, seed))
               for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert pool.stats()['held_bytes'] <= 8 * LARGE


@needs_pool
@pytest.mark.skipif(not hasattr(os, 'fork'), reason='needs os.fork')
def test_a_forked_child_allocates_and_frees(pool):
    del_me = np.empty(LARGE, np.uint8)
    del del_me
    pid = os.fork()
    if pid == 0:  # the child
        code = 1
        try:
            arrays = [np.ones(LARGE // 8) for _ in range(4)]
            code = 0 if sum(a.sum() for a in arrays) == LARGE // 2 else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def _run(code, **env):
    environment = {**os.environ, **env}
    return subprocess.run([sys.executable, '-c', code], env=environment,
                          capture_output=True, text=True, check=False)


REPORT = ('import numpy as np, catena; from catena import _memory_pool as p; '
          'from numpy.lib import NumpyVersion; '
          'm = __import__("numpy._core.multiarray" if NumpyVersion(np.__version__) >= "2.0.0" '
          'else "numpy.core.multiarray", fromlist=["x"]); '
          'print(m.get_handler_name(np.empty(1 << 20)), p.stats()["limit_bytes"], '
          'p.description())')


@needs_pool
def test_the_environment_sets_the_limit():
    result = _run(REPORT, CATENA_CPU_MEMORY_POOL='32')
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:2] == ['catena_pool', str(32 << 20)]


def test_a_limit_of_zero_leaves_numpys_allocator():
    result = _run(REPORT, CATENA_CPU_MEMORY_POOL='0')
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:2] == ['default_allocator', '0']
    assert 'off (CATENA_CPU_MEMORY_POOL=0)' in result.stdout


@pytest.mark.parametrize('value', ['-1', 'lots', '1.5'])
def test_a_bad_limit_names_the_variable(value):
    result = _run('import catena', CATENA_CPU_MEMORY_POOL=value)
    assert result.returncode != 0
    assert 'CATENA_CPU_MEMORY_POOL must be a whole number of MiB' in result.stderr
    assert repr(value) in result.stderr


def test_the_runtime_report_names_the_pool():
    from catena import _runtime_info

    lines = _runtime_info.runtime_info_lines()
    assert f'CPU memory pool: {_memory_pool.description()}' in lines


@needs_pool
def test_a_block_leaves_after_the_requests_it_could_not_serve(pool):
    stale_after = pool.stats()['stale_after']
    assert stale_after >= 2
    del_me = np.empty(LARGE, np.uint8)
    del del_me
    others = []
    for index in range(stale_after):
        others.append(np.empty(2 * LARGE + index * 4096, np.uint8))
    assert pool.stats()['held_blocks'] == 1
    others.append(np.empty(4 * LARGE, np.uint8))
    assert pool.stats()['held_blocks'] == 0
