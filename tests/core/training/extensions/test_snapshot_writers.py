"""The snapshot writers: loadable files, atomic writes, workers that end, start methods."""

import multiprocessing
import os
import threading
import zipfile

import numpy
import pytest

import catena.links as L
from catena import serializers
from catena.training.extensions import _snapshot, snapshot_writers

START_METHODS = multiprocessing.get_all_start_methods()


def make_model(seed):
    rng = numpy.random.default_rng(seed)
    model = L.Linear(4, 3)
    model.W.array[...] = rng.standard_normal((3, 4)).astype(numpy.float32)
    model.b.array[...] = rng.standard_normal(3).astype(numpy.float32)
    return model


def assert_file_holds(path, model):
    loaded = L.Linear(4, 3)
    serializers.load_npz(path, loaded)
    numpy.testing.assert_array_equal(loaded.W.array, model.W.array)
    numpy.testing.assert_array_equal(loaded.b.array, model.b.array)


def _with_context(cls, method):
    class Writer(cls):
        multiprocessing_context = method

    return Writer


WRITERS = {
    'simple': lambda: snapshot_writers.SimpleWriter(),
    'thread': lambda: snapshot_writers.ThreadWriter(),
    'process': lambda: snapshot_writers.ProcessWriter(),
    'thread_queue': lambda: snapshot_writers.ThreadQueueWriter(),
    'process_queue': lambda: snapshot_writers.ProcessQueueWriter(),
}
if 'spawn' in START_METHODS:
    # spawn and forkserver pickle what goes to the worker, and each start imports
    # catena afresh, so one snapshot each is enough.
    WRITERS['process_spawn'] = lambda: _with_context(snapshot_writers.ProcessWriter, 'spawn')()
    WRITERS['process_queue_spawn'] = lambda: _with_context(
        snapshot_writers.ProcessQueueWriter, 'spawn')()
if 'forkserver' in START_METHODS:
    WRITERS['process_forkserver'] = lambda: _with_context(
        snapshot_writers.ProcessWriter, 'forkserver')()


@pytest.mark.parametrize('kind', sorted(WRITERS))
def test_every_writer_writes_loadable_files_and_finalize_ends_its_workers(tmp_path, kind):
    threads_before = set(threading.enumerate())
    writer = WRITERS[kind]()
    one_start = kind.endswith(('spawn', 'forkserver'))
    models = [make_model(0)] if one_start else [make_model(0), make_model(1)]
    for i, model in enumerate(models):
        # What the snapshot extension hands over (a dict of arrays), and a link itself.
        target = _snapshot._serialize(model) if i == 0 else model
        writer(f'model_{i}.npz', str(tmp_path), target)
    writer.finalize()

    assert set(threading.enumerate()) <= threads_before
    assert multiprocessing.active_children() == []
    assert sorted(os.listdir(tmp_path)) == [f'model_{i}.npz' for i in range(len(models))]
    for i, model in enumerate(models):
        assert_file_holds(tmp_path / f'model_{i}.npz', model)
    writer.finalize()  # a second finalize does nothing


def test_the_saving_function_gets_its_keyword_arguments(tmp_path):
    model = make_model(0)
    writer = snapshot_writers.ThreadWriter(serializers.save_npz, compression=False)
    writer('model.npz', str(tmp_path), model)
    writer.finalize()
    with numpy.load(tmp_path / 'model.npz') as archive:
        assert sorted(archive.files) == ['W', 'b']
    with zipfile.ZipFile(tmp_path / 'model.npz') as archive:
        assert {info.compress_type for info in archive.infolist()} == {zipfile.ZIP_STORED}


def test_a_filename_with_a_folder_creates_it(tmp_path):
    writer = snapshot_writers.SimpleWriter()
    model = make_model(0)
    writer('snapshots/epoch_1.npz', str(tmp_path), model)
    assert os.listdir(tmp_path / 'snapshots') == ['epoch_1.npz']
    assert_file_holds(tmp_path / 'snapshots' / 'epoch_1.npz', model)


def _write_half_then_fail(path, target):
    with open(path, 'wb') as stream:
        stream.write(b'PK\x03\x04 half of an archive')
    raise OSError('disk full')


def test_a_failed_write_keeps_the_previous_file_and_leaves_nothing_behind(tmp_path):
    old = make_model(0)
    snapshot_writers.SimpleWriter()('snapshot', str(tmp_path), old)
    with pytest.raises(OSError, match='disk full'):
        snapshot_writers.SimpleWriter(_write_half_then_fail)('snapshot', str(tmp_path),
                                                             make_model(1))
    assert os.listdir(tmp_path) == ['snapshot']
    assert_file_holds(tmp_path / 'snapshot', old)


def test_a_new_write_replaces_the_file_whole(tmp_path):
    writer = snapshot_writers.SimpleWriter()
    writer('snapshot', str(tmp_path), make_model(0))
    new = make_model(1)
    writer('snapshot', str(tmp_path), new)
    assert os.listdir(tmp_path) == ['snapshot']
    assert_file_holds(tmp_path / 'snapshot', new)


def test_a_saving_function_that_writes_nothing_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match='wrote no file'):
        snapshot_writers.SimpleWriter(lambda path, target: None)('x', str(tmp_path), None)
    assert os.listdir(tmp_path) == []


def test_a_failing_task_does_not_stop_a_queue_writer(tmp_path, capfd):
    calls = []

    def task(filename, outdir, target):
        calls.append(filename)
        if filename == 'bad':
            raise RuntimeError('cannot write this one')
        snapshot_writers.SimpleWriter()(filename, outdir, target)

    writer = snapshot_writers.ThreadQueueWriter(task=task)
    model = make_model(0)
    writer('bad', str(tmp_path), model)
    writer('good', str(tmp_path), model)
    writer.finalize()
    assert calls == ['bad', 'good']
    assert os.listdir(tmp_path) == ['good']
    assert 'cannot write this one' in capfd.readouterr().err
    with pytest.raises(RuntimeError, match='finalized'):
        writer('late', str(tmp_path), model)


def test_post_save_hooks_run_after_each_write(tmp_path):
    seen = []
    writer = snapshot_writers.ThreadQueueWriter()
    writer._add_cleanup_hook(lambda: seen.append(sorted(os.listdir(tmp_path))))
    writer('a', str(tmp_path), make_model(0))
    writer('b', str(tmp_path), make_model(1))
    writer.finalize()
    assert seen == [['a'], ['a', 'b']]


def test_the_process_queue_writer_refuses_what_it_cannot_pickle(tmp_path):
    writer = snapshot_writers.ProcessQueueWriter(savefun=lambda path, target: None)
    try:
        with pytest.raises(TypeError, match='picklable'):
            writer('x', str(tmp_path), make_model(0))
    finally:
        writer.finalize()
    assert multiprocessing.active_children() == []
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif('fork' not in START_METHODS, reason='needs the fork start method')
def test_a_failed_process_write_warns_when_joined(tmp_path):
    writer = _with_context(snapshot_writers.ProcessWriter, 'fork')(_write_half_then_fail)
    writer('snapshot', str(tmp_path), make_model(0))
    with pytest.warns(RuntimeWarning, match="'snapshot'.*not written"):
        writer.finalize()
    assert os.listdir(tmp_path) == []


def test_bad_arguments():
    with pytest.raises(TypeError, match='savefun'):
        snapshot_writers.SimpleWriter(savefun='save_npz')
    with pytest.raises(TypeError, match='savefun'):
        snapshot_writers.ThreadWriter(savefun=3)
    with pytest.raises(TypeError, match='task'):
        snapshot_writers.ThreadQueueWriter(task=3)
    with pytest.raises(NotImplementedError):
        snapshot_writers.Writer()('x', '.', None)


def test_process_writer_workers_are_default_context_processes(tmp_path):
    worker = snapshot_writers.ProcessWriter().create_worker('a.npz', str(tmp_path), {})
    assert isinstance(worker, multiprocessing.Process)
    writer = snapshot_writers.ProcessWriter()
    writer.multiprocessing_context = 'spawn'
    worker = writer.create_worker('a.npz', str(tmp_path), {})
    assert type(worker) is multiprocessing.get_context('spawn').Process


def test_a_queue_writer_finalize_joins_the_queue_then_the_consumer(tmp_path):
    events = []

    class Queue:
        def __init__(self):
            self.items = []

        def put(self, item):
            self.items.append(item)

        def empty(self):
            return True

        def join(self):
            events.append('queue joined')

    class Consumer:
        def start(self):
            pass

        def is_alive(self):
            return True

        def join(self):
            events.append('consumer joined')

    class Writer(snapshot_writers.QueueWriter):
        def create_queue(self):
            return Queue()

        def create_consumer(self, q):
            return Consumer()

    writer = Writer()
    writer('a.npz', str(tmp_path), {})
    writer.finalize()
    assert len(writer._queue.items) == 2 and writer._queue.items[-1] is None
    assert events == ['consumer joined', 'queue joined']
