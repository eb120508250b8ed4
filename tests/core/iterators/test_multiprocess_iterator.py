import functools
import operator
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy
import pytest

from catena.datasets import TransformDataset, TupleDataset
from catena.iterators import MultiprocessIterator, SerialIterator, _workers

N = 12
IMAGES = numpy.arange(N * 3 * 40 * 40, dtype=numpy.float32).reshape(N, 3, 40, 40)
DATA = TupleDataset(IMAGES, numpy.arange(N))


class Exploding:
    """A dataset class of this module; workers import it by name."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            raise KeyError(f'example {i} is broken')
        return i


@pytest.mark.parametrize('shared_mem', [None, 0])
def test_batches_match_serial_iterator(shared_mem):
    numpy.random.seed(1)  # noqa: NPY002
    serial = SerialIterator(DATA, 5)
    numpy.random.seed(1)  # noqa: NPY002
    with MultiprocessIterator(DATA, 5, n_processes=2, shared_mem=shared_mem) as it:
        for _ in range(6):
            got, want = it.next(), serial.next()
            assert [int(t) for _, t in got] == [int(t) for _, t in want]
            for (x, _), (y, _) in zip(got, want):
                numpy.testing.assert_array_equal(x, y)
                assert x.flags.writeable
            assert (it.epoch, it.is_new_epoch) == (serial.epoch, serial.is_new_epoch)


def test_no_repeat_ends():
    it = MultiprocessIterator(numpy.arange(7), 3, repeat=False, shuffle=False, n_processes=2)
    assert [[int(v) for v in b] for b in it] == [[0, 1, 2], [3, 4, 5], [6]]
    with pytest.raises(StopIteration):
        it.next()
    it.finalize()


def test_worker_exception_reaches_main_with_traceback():
    dataset = TransformDataset([1.0, 2.0, 0.0, 4.0], functools.partial(operator.truediv, 1.0))
    it = MultiprocessIterator(dataset, 4, shuffle=False, n_processes=2)
    with pytest.raises(ZeroDivisionError) as info:
        it.next()
    remote = str(info.value.__cause__)
    assert 'MultiprocessIterator worker' in remote
    assert 'transform_dataset.py' in remote and 'ZeroDivisionError' in remote
    it.finalize()
    it.finalize()


def test_exception_from_a_test_module_class():
    it = MultiprocessIterator(Exploding(), 4, shuffle=False, n_processes=1)
    try:
        with pytest.raises(KeyError, match='example 2 is broken') as info:
            it.next()
        assert '__getitem__' in str(info.value.__cause__)
    finally:
        it.finalize()


def test_unpicklable_dataset_is_reported():
    it = MultiprocessIterator(TransformDataset([1], lambda v: v), 1, n_processes=1)
    with pytest.raises(TypeError, match='cannot be pickled'):
        it.next()
    it.finalize()


def test_finalize_before_start_twice_and_restart():
    it = MultiprocessIterator(numpy.arange(6), 2, shuffle=False, n_processes=2)
    it.finalize()
    it.finalize()
    assert [int(v) for v in it.next()] == [0, 1]
    it.finalize()
    assert [int(v) for v in it.next()] == [2, 3]  # new workers continue the stream
    it.finalize()
    it.finalize()


def test_create_and_finalize_50_times():
    for i in range(50):
        it = MultiprocessIterator(numpy.arange(8), 4, shuffle=False, n_processes=2)
        if i % 5 == 0:
            assert [int(v) for v in it.next()] == [0, 1, 2, 3]
        it.finalize()
        if i % 2:
            it.finalize()


def test_dead_worker_is_reported():
    dataset = TransformDataset([0.0] * 4 + [30.0] * 4, time.sleep)
    it = MultiprocessIterator(dataset, 4, shuffle=False, n_processes=1, n_prefetch=1)
    it.next()
    pool = it._pool
    for worker in pool._workers:
        os.kill(worker.pid, signal.SIGKILL)
    with pytest.raises(RuntimeError, match='exited unexpectedly.*SIGKILL'):
        it.next()
    it.finalize()


def test_dataset_timeout_warns():
    dataset = TransformDataset([0.6, 0.6], time.sleep)
    it = MultiprocessIterator(dataset, 2, repeat=False, shuffle=False, n_processes=1,
                              dataset_timeout=0.1)
    with pytest.warns(MultiprocessIterator.TimeoutWarning):
        assert it.next() == [None, None]
    it.finalize()


def test_maxtasksperchild_replaces_workers():
    it = MultiprocessIterator(numpy.arange(10), 3, shuffle=False, n_processes=2,
                              maxtasksperchild=1)
    try:
        got = [int(v) for _ in range(5) for v in it.next()]
        assert got == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4]
    finally:
        it.finalize()


def test_full_shared_memory_gives_a_clear_error(monkeypatch):
    monkeypatch.setattr(_workers, '_shm_free_bytes', lambda: 1024)
    with pytest.raises(_workers.SharedMemoryFullError, match='shm-size.*shared_mem=0'):
        _workers.pack([numpy.zeros(100000, numpy.float32)], True)
    small = _workers.pack([numpy.zeros(4)], True)
    assert small[1] is None


def test_pack_unpack_round_trip_frees_shared_memory():
    example = [(numpy.arange(50000, dtype=numpy.float64).reshape(100, 500).T, 3)]
    payload = _workers.pack(example, True)
    assert payload[1] is not None
    out = _workers.unpack(payload)
    numpy.testing.assert_array_equal(out[0][0], example[0][0])
    assert not os.path.exists(os.path.join('/dev/shm', payload[1].lstrip('/')))


def test_interpreter_exit_without_finalize_does_not_hang(tmp_path):
    script = textwrap.dedent('''
        import numpy
        from catena.datasets import TupleDataset
        from catena.iterators import MultiprocessIterator
        if __name__ == '__main__':
            data = TupleDataset(numpy.ones((64, 20000), numpy.float32), numpy.arange(64))
            it = MultiprocessIterator(data, 8, n_processes=2, n_prefetch=3)
            it.next()
            print('fetched', flush=True)
    ''')
    path = tmp_path / 'no_finalize.py'
    path.write_text(script)
    start = time.monotonic()
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert 'fetched' in done.stdout
    assert 'leaked' not in done.stderr
    assert time.monotonic() - start < 30
