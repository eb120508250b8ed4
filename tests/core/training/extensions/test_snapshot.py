"""snapshot / snapshot_object on a real Trainer: files, resuming, crashes, Chainer's snapshots."""

import io
import json
import multiprocessing
import os
import pathlib
import signal
import subprocess
import sys
import time
import warnings

import numpy
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena import datasets, iterators, optimizers, serializers, training
from catena.dataset import convert
from catena.training import extensions
from catena.training.extensions import _snapshot, snapshot_writers

HERE = pathlib.Path(__file__).parent
CHAINER_DATA = HERE.parents[2] / 'data' / 'chainer-7.8.1'

# 40 examples in batches of 10: 4 iterations per epoch.
N_EXAMPLES = 40
BATCH_SIZE = 10


def make_trainer(out, stop=(3, 'iteration')):
    """Classifier(Linear(3, 2)) with MomentumSGD on fixed data; equal calls train equally."""
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((N_EXAMPLES, 3)).astype(numpy.float32)
    t = (x.sum(axis=1) > 0).astype(numpy.int32)
    initial_w = (rng.standard_normal((2, 3)) * 0.5).astype(numpy.float32)
    model = L.Classifier(L.Linear(3, 2, initialW=initial_w))
    optimizer = optimizers.MomentumSGD(lr=0.1)
    optimizer.setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), BATCH_SIZE, shuffle=False)
    return training.Trainer(training.StandardUpdater(iterator, optimizer), stop, out=str(out))


def model_of(trainer):
    return trainer.updater.get_optimizer('main').target


def trained_params(iterations, tmp_path):
    trainer = make_trainer(tmp_path / f'reference_{iterations}', (iterations, 'iteration'))
    trainer.run()
    return {name: param.array.copy() for name, param in model_of(trainer).namedparams()}


def assert_params_equal(model, expected):
    actual = {name: param.array for name, param in model.namedparams()}
    assert actual.keys() == expected.keys()
    for name in expected:
        numpy.testing.assert_array_equal(actual[name], expected[name], err_msg=name)


def snapshot_names(out):
    return sorted(name for name in os.listdir(out) if name.startswith('snapshot'))


# -- the extension ------------------------------------------------------------------------


def test_defaults_are_chainers():
    extension = extensions.snapshot()
    assert extension.trigger == (1, 'epoch')
    assert extension.priority == -100
    assert extension.filename == 'snapshot_iter_{.updater.iteration}'
    assert isinstance(extension.writer, snapshot_writers.SimpleWriter)
    assert extension.n_retains == -1 and extension.autoload is False


def test_default_trigger_writes_one_snapshot_per_epoch_that_resumes_the_trainer(tmp_path):
    trainer = make_trainer(tmp_path, (2, 'epoch'))
    trainer.extend(extensions.snapshot())
    trainer.run()
    assert sorted(os.listdir(tmp_path)) == ['snapshot_iter_4', 'snapshot_iter_8']

    resumed = make_trainer(tmp_path / 'resumed', (2, 'epoch'))
    resumed.extend(extensions.snapshot())
    serializers.load_npz(tmp_path / 'snapshot_iter_4', resumed)
    assert resumed.updater.iteration == 4
    assert resumed.updater.get_iterator('main').epoch == 1
    assert_params_equal(model_of(resumed), trained_params(4, tmp_path))
    resumed.run()
    assert resumed.updater.iteration == 8
    assert_params_equal(model_of(resumed), trained_params(8, tmp_path))


def test_snapshot_object_saves_only_the_target(tmp_path):
    trainer = make_trainer(tmp_path, (2, 'epoch'))
    predictor = model_of(trainer).predictor
    trainer.extend(extensions.snapshot_object(predictor, 'model_epoch_{.updater.epoch}'))
    trainer.run()
    assert sorted(os.listdir(tmp_path)) == ['model_epoch_1', 'model_epoch_2']
    with numpy.load(tmp_path / 'model_epoch_2') as archive:
        assert sorted(archive.files) == ['W', 'b']
    loaded = L.Linear(3, 2)
    serializers.load_npz(tmp_path / 'model_epoch_2', loaded)
    numpy.testing.assert_array_equal(loaded.W.array, predictor.W.array)
    numpy.testing.assert_array_equal(loaded.b.array, predictor.b.array)


def test_a_callable_filename_receives_the_trainer(tmp_path):
    trainer = make_trainer(tmp_path, (2, 'iteration'))
    trainer.extend(extensions.snapshot(filename=lambda t: f'at-{t.updater.iteration}.npz'),
                   trigger=(1, 'iteration'))
    trainer.run()
    assert sorted(os.listdir(tmp_path)) == ['at-1.npz', 'at-2.npz']


def test_savefun_receives_a_state_that_save_npz_writes_like_the_trainer(tmp_path):
    calls = []
    direct = io.BytesIO()

    def savefun(path, state):
        calls.append((os.path.basename(path), sorted(state)))
        serializers.save_npz(path, state)
        serializers.save_npz(direct, trainer)  # the trainer itself, at the same moment

    trainer = make_trainer(tmp_path, (1, 'iteration'))
    trainer.extend(extensions.snapshot(savefun=savefun), trigger=(1, 'iteration'))
    trainer.run()
    direct.seek(0)
    with numpy.load(direct) as expected, numpy.load(tmp_path / 'snapshot_iter_1') as written:
        assert sorted(written.files) == sorted(expected.files)
        assert calls == [('snapshot_iter_1', sorted(expected.files))]
        for key in expected.files:
            if key != '_snapshot_elapsed_time':
                numpy.testing.assert_array_equal(written[key], expected[key], err_msg=key)


def test_condition_decides_whether_to_write(tmp_path):
    answers = iter([True, False, False, True])
    trainer = make_trainer(tmp_path, (4, 'iteration'))
    trainer.extend(extensions.snapshot(condition=lambda: next(answers)), trigger=(1, 'iteration'))
    trainer.run()
    assert snapshot_names(tmp_path) == ['snapshot_iter_1', 'snapshot_iter_4']


def _failing_at(iteration):
    @training.make_extension(trigger=(1, 'iteration'), priority=training.PRIORITY_WRITER)
    def fail(trainer):
        if trainer.updater.iteration == iteration:
            raise RuntimeError('boom')

    return fail


@pytest.mark.parametrize('on_error', [True, False])
def test_snapshot_on_error_writes_the_failing_state(tmp_path, on_error):
    trainer = make_trainer(tmp_path, (10, 'iteration'))
    trainer.extend(extensions.snapshot(snapshot_on_error=on_error), trigger=(100, 'iteration'))
    trainer.extend(_failing_at(3))
    with pytest.raises(RuntimeError, match='boom'):
        trainer.run(show_loop_exception_msg=False)
    if not on_error:
        assert snapshot_names(tmp_path) == []
        return
    assert snapshot_names(tmp_path) == ['snapshot_iter_3']
    resumed = make_trainer(tmp_path / 'resumed', (10, 'iteration'))
    resumed.extend(extensions.snapshot(snapshot_on_error=True), trigger=(100, 'iteration'))
    resumed.extend(_failing_at(3))
    serializers.load_npz(tmp_path / 'snapshot_iter_3', resumed)
    assert resumed.updater.iteration == 3
    assert_params_equal(model_of(resumed), trained_params(3, tmp_path))


# fork starts workers fastest; test_snapshot_writers.py covers the spawn start method.
FAST_START = 'fork' if 'fork' in multiprocessing.get_all_start_methods() else None


def _process_writer(cls):
    writer_class = type(cls.__name__, (cls,), {'multiprocessing_context': FAST_START})
    return writer_class()


WRITERS = {
    'simple': lambda: snapshot_writers.SimpleWriter(),
    'thread': lambda: snapshot_writers.ThreadWriter(),
    'process': lambda: _process_writer(snapshot_writers.ProcessWriter),
    'thread_queue': lambda: snapshot_writers.ThreadQueueWriter(),
    'process_queue': lambda: _process_writer(snapshot_writers.ProcessQueueWriter),
}


@pytest.mark.parametrize('kind', sorted(WRITERS))
def test_n_retains_keeps_the_newest_snapshots_with_every_writer(tmp_path, kind):
    trainer = make_trainer(tmp_path, (6, 'iteration'))
    trainer.extend(extensions.snapshot(writer=WRITERS[kind](), n_retains=2),
                   trigger=(1, 'iteration'))
    (tmp_path / 'snapshot_notes.txt').write_text('not a snapshot')  # does not match the pattern
    trainer.run()
    assert snapshot_names(tmp_path) == ['snapshot_iter_5', 'snapshot_iter_6',
                                        'snapshot_notes.txt']
    assert not [name for name in os.listdir(tmp_path) if name.startswith('.')]
    resumed = make_trainer(tmp_path / 'resumed', (6, 'iteration'))
    resumed.extend(extensions.snapshot(n_retains=2), trigger=(1, 'iteration'))
    serializers.load_npz(tmp_path / 'snapshot_iter_6', resumed)
    assert_params_equal(model_of(resumed), trained_params(6, tmp_path))


def test_without_n_retains_every_snapshot_stays(tmp_path):
    trainer = make_trainer(tmp_path, (5, 'iteration'))
    trainer.extend(extensions.snapshot(), trigger=(1, 'iteration'))
    trainer.run()
    assert snapshot_names(tmp_path) == [f'snapshot_iter_{i}' for i in range(1, 6)]


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(TypeError, match='savefun or writer'):
        extensions.snapshot(savefun=serializers.save_npz,
                            writer=snapshot_writers.SimpleWriter())
    with pytest.raises(TypeError, match='filename'):
        extensions.snapshot(filename=3)
    with pytest.raises(ValueError, match='format string'):
        extensions.snapshot(filename='snapshot_{.updater.iteration')
    with pytest.raises(ValueError, match='callable filename'):
        extensions.snapshot(filename=lambda trainer: 'x', autoload=True)
    with pytest.raises(ValueError, match='literal folder'):
        extensions.snapshot(filename='{.updater.epoch}/snapshot', n_retains=2)
    with pytest.raises(TypeError, match='condition'):
        extensions.snapshot(condition=True)
    with pytest.raises(TypeError, match='n_retains'):
        extensions.snapshot(n_retains='2')
    with pytest.raises(TypeError, match='target'):
        extensions.snapshot_object(L.Linear(2, 2), 'model', target=L.Linear(2, 2))


# -- autoload and crashes -----------------------------------------------------------------


def _autoloading_trainer(out, stop):
    """A trainer with snapshot(autoload=True); ``trainer.loaded`` lists the start iteration."""
    trainer = make_trainer(out, (stop, 'iteration'))
    trainer.extend(extensions.snapshot(autoload=True), trigger=(1, 'iteration'))
    trainer.loaded = []

    def record_start(trainer):
        trainer.loaded.append(trainer.updater.iteration)

    # Initialized after the snapshot (lower priority); a trigger without state, so
    # the snapshots' keys stay the same.
    probe = training.make_extension(priority=-1000, initializer=record_start)(
        lambda trainer: None)
    trainer.extend(probe, name='probe', trigger=lambda trainer: False)
    return trainer


def test_autoload_without_snapshots_starts_afresh(tmp_path):
    trainer = _autoloading_trainer(tmp_path, 2)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        trainer.run()
    assert trainer.loaded == [0] and trainer.updater.iteration == 2
    assert_params_equal(model_of(trainer), trained_params(2, tmp_path))


def test_autoload_resumes_from_the_newest_snapshot(tmp_path):
    _autoloading_trainer(tmp_path, 3).run()
    os.remove(tmp_path / 'snapshot_iter_3')
    resumed = _autoloading_trainer(tmp_path, 5)
    resumed.run()
    assert resumed.loaded == [2] and resumed.updater.iteration == 5
    assert_params_equal(model_of(resumed), trained_params(5, tmp_path))


def test_autoload_orders_equal_times_by_number(tmp_path):
    _autoloading_trainer(tmp_path, 10).run()
    for name in os.listdir(tmp_path):
        os.utime(tmp_path / name, ns=(10 ** 18, 10 ** 18))  # same mtime: the name decides
    os.remove(tmp_path / 'snapshot_iter_10')
    resumed = _autoloading_trainer(tmp_path, 10)
    resumed.run()
    assert resumed.loaded == [9]


def test_autoload_prefers_the_newest_file_by_time(tmp_path):
    _autoloading_trainer(tmp_path, 3).run()
    os.utime(tmp_path / 'snapshot_iter_1', ns=(2 * 10 ** 18, 2 * 10 ** 18))
    resumed = _autoloading_trainer(tmp_path, 3)
    resumed.run()
    assert resumed.loaded == [1]


@pytest.mark.parametrize('damage', ['truncate', 'empty', 'flip'])
def test_autoload_skips_a_corrupt_newest_snapshot_with_a_warning(tmp_path, damage):
    _autoloading_trainer(tmp_path, 3).run()
    newest = tmp_path / 'snapshot_iter_3'
    data = newest.read_bytes()
    if damage == 'truncate':
        newest.write_bytes(data[:len(data) // 2])
    elif damage == 'empty':
        newest.write_bytes(b'')
    else:
        middle = len(data) // 3
        newest.write_bytes(data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:])

    resumed = _autoloading_trainer(tmp_path, 5)
    with pytest.warns(RuntimeWarning, match='snapshot_iter_3') as record:
        resumed.run()
    assert len(record) == 1 and 'snapshot_iter_2' not in str(record[0].message)
    assert resumed.loaded == [2] and resumed.updater.iteration == 5
    assert_params_equal(model_of(resumed), trained_params(5, tmp_path))


def test_autoload_raises_when_no_snapshot_can_be_read(tmp_path):
    _autoloading_trainer(tmp_path, 2).run()
    for name in ('snapshot_iter_1', 'snapshot_iter_2'):
        (tmp_path / name).write_bytes(b'PK\x03\x04 not really a zip')
    resumed = _autoloading_trainer(tmp_path, 4)
    with pytest.warns(RuntimeWarning), \
            pytest.raises(serializers.FileFormatError, match='no readable snapshot'):
        resumed.run()
    assert resumed.updater.iteration == 0


def test_autoload_does_not_skip_a_snapshot_that_does_not_fit(tmp_path):
    _autoloading_trainer(tmp_path, 1).run()
    serializers.save_npz(tmp_path / 'snapshot_iter_2', L.Classifier(L.Linear(3, 2)))
    resumed = _autoloading_trainer(tmp_path, 4)
    with pytest.raises(serializers.KeyMismatchError):
        resumed.run()
    assert resumed.updater.iteration == 0


def _save_then_fail(calls):
    def savefun(path, target):
        calls.append(path)
        if len(calls) < 2:
            serializers.save_npz(path, target)
            return
        buffer = io.BytesIO()
        serializers.save_npz(buffer, target)
        with open(path, 'wb') as stream:
            stream.write(buffer.getvalue()[:200])
        raise OSError('disk full')

    return savefun


def test_a_savefun_failing_mid_write_leaves_no_snapshot_under_its_name(tmp_path):
    calls = []
    trainer = make_trainer(tmp_path, (5, 'iteration'))
    trainer.extend(extensions.snapshot(savefun=_save_then_fail(calls)), trigger=(1, 'iteration'))
    with pytest.raises(OSError, match='disk full'):
        trainer.run(show_loop_exception_msg=False)
    assert len(calls) == 2 and os.path.basename(calls[1]) == 'snapshot_iter_2'
    assert sorted(os.listdir(tmp_path)) == ['snapshot_iter_1']  # no temporary left either
    resumed = _autoloading_trainer(tmp_path, 1)
    serializers.load_npz(tmp_path / 'snapshot_iter_1', resumed)
    assert resumed.updater.iteration == 1


def _crash_while_writing(out):
    # Runs in a forked child: the second snapshot's writer dies half way.
    def savefun(path, target):
        if os.path.basename(path) == 'snapshot_iter_1':
            serializers.save_npz(path, target)
            return
        buffer = io.BytesIO()
        serializers.save_npz(buffer, target)
        with open(path, 'wb') as stream:
            stream.write(buffer.getvalue()[:300])
            stream.flush()
        os._exit(7)

    trainer = make_trainer(out, (5, 'iteration'))
    trainer.extend(extensions.snapshot(savefun=savefun), trigger=(1, 'iteration'))
    trainer.run()


@pytest.mark.skipif('fork' not in multiprocessing.get_all_start_methods(),
                    reason='needs the fork start method')
def test_a_process_dying_mid_write_leaves_the_previous_snapshot_to_resume(tmp_path):
    child = multiprocessing.get_context('fork').Process(target=_crash_while_writing,
                                                        args=(tmp_path,))
    child.start()
    child.join()
    assert child.exitcode == 7
    assert snapshot_names(tmp_path) == ['snapshot_iter_1']
    # The half-written file is there, but only inside a hidden temporary folder.
    leftovers = [name for name in os.listdir(tmp_path) if name.startswith('.')]
    assert len(leftovers) == 1 and (tmp_path / leftovers[0]).is_dir()
    partial = tmp_path / leftovers[0] / 'snapshot_iter_2'
    assert partial.stat().st_size == 300
    with pytest.raises(serializers.FileFormatError):
        serializers.load_npz(partial, make_trainer(tmp_path / 'probe'))

    resumed = _autoloading_trainer(tmp_path, 4)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        resumed.run()
    assert resumed.loaded == [1] and resumed.updater.iteration == 4
    assert_params_equal(model_of(resumed), trained_params(4, tmp_path))


# -- a Chainer 7.8.1 run goes on in catena ------------------------------------------------


class MLP(catena.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(20, 30)
            self.l2 = L.Linear(30, 10)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def test_a_chainer_trainer_snapshot_resumes_in_catena(tmp_path):
    fixture = CHAINER_DATA / 'trainer_snapshot_iter7.npz'
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((40, 20)).astype(numpy.float32)
    x[:, 0] = numpy.arange(40)  # tells which examples each batch holds
    t = (numpy.arange(40) % 10).astype(numpy.int32)
    model = L.Classifier(MLP())
    optimizer = optimizers.MomentumSGD(lr=0.05)
    optimizer.setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), 8, shuffle=False)
    batches = []

    def converter(batch, device=None):
        arrays = convert.concat_examples(batch, device)
        batches.append(arrays[0][:, 0].astype(int).tolist())
        return arrays

    updater = training.StandardUpdater(iterator, optimizer, converter=converter)
    trainer = training.Trainer(updater, (20, 'iteration'), out=str(tmp_path))

    serializers.load_npz(fixture, trainer)  # strict: every key of the file fits

    with numpy.load(fixture) as stored:
        saved = {key: stored[key] for key in stored.files}
    assert updater.iteration == 7
    assert iterator.epoch == 1 and iterator.current_position == 16
    assert not iterator.is_new_epoch and iterator.epoch_detail == pytest.approx(1.4)
    assert optimizer.t == 7 and optimizer.epoch == 1
    for name, param in model.namedparams():
        numpy.testing.assert_array_equal(param.array, saved['updater/model:main' + name])
        numpy.testing.assert_array_equal(param.update_rule.state['v'],
                                         saved['updater/optimizer:main' + name + '/v'])

    # The first resumed step, written out: v = 0.9 v - 0.05 grad; W += v.
    probe = L.Classifier(MLP())
    serializers.load_npz(fixture, probe, path='updater/model:main/')
    probe.cleargrads()
    probe(x[16:24], t[16:24]).backward()
    expected_w = {}
    for name, param in probe.namedparams():
        velocity = saved['updater/optimizer:main' + name + '/v'] * numpy.float32(0.9)
        velocity -= numpy.float32(0.05) * param.grad
        expected_w[name] = saved['updater/model:main' + name] + velocity
    after_first_step = {}

    @training.make_extension(trigger=(1, 'iteration'))
    def record(trainer):
        if trainer.updater.iteration == 8:
            after_first_step.update({n: p.array.copy() for n, p in model.namedparams()})

    trainer.extend(record)
    trainer.run()

    assert updater.iteration == 20 and optimizer.t == 20
    assert iterator.epoch == 4 and iterator.current_position == 0
    order = list(range(40)) * 4
    assert batches == [order[8 * i:8 * i + 8] for i in range(7, 20)]
    for name in expected_w:
        numpy.testing.assert_allclose(after_first_step[name], expected_w[name],
                                      rtol=1e-6, atol=1e-7, err_msg=name)


# -- killed with SIGKILL and resumed: bit for bit the uninterrupted run -------------------


def _start(out, stop, pause_at, result):
    env = dict(os.environ, OMP_NUM_THREADS='1', OPENBLAS_NUM_THREADS='1', MKL_NUM_THREADS='1')
    return subprocess.Popen(
        [sys.executable, str(HERE / '_resume_script.py'), str(out), str(stop), str(pause_at),
         str(result)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(process):
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    return stdout


def _wait_for(marker, process):
    deadline = time.monotonic() + 300  # a guard against hanging, not a timing assertion
    while not marker.exists():
        if process.poll() is not None:
            pytest.fail(f'the run ended before pausing:\n{process.communicate()[1]}')
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail('the run never paused')
        time.sleep(0.01)


def _final_state(path):
    with numpy.load(path) as archive:
        state = {key: archive[key] for key in archive.files}
    del state['_snapshot_elapsed_time']  # wall-clock time, the one thing that differs
    return state


def _without_times(log):
    return [{k: v for k, v in entry.items() if k != 'elapsed_time'} for entry in log]


def test_a_run_killed_mid_way_resumes_bit_for_bit(tmp_path):
    stop = 20
    reference = _start(tmp_path / 'reference', stop, 0, tmp_path / 'reference.npz')
    interrupted = _start(tmp_path / 'run', stop, 10, tmp_path / 'unused.npz')
    _wait_for(tmp_path / 'run' / 'paused', interrupted)
    interrupted.send_signal(signal.SIGKILL)
    interrupted.communicate(timeout=300)
    assert interrupted.returncode == -signal.SIGKILL
    assert snapshot_names(tmp_path / 'run') == ['snapshot_iter_4', 'snapshot_iter_8']
    assert not (tmp_path / 'unused.npz').exists()

    assert _finish(reference) == 'start 0\n'
    resumed = _start(tmp_path / 'run', stop, 0, tmp_path / 'resumed.npz')
    assert _finish(resumed) == 'start 8\n'

    expected = _final_state(tmp_path / 'reference.npz')
    actual = _final_state(tmp_path / 'resumed.npz')
    assert sorted(actual) == sorted(expected)
    # The iterator's order and position, the sampler's random state, Adam's state:
    for key in ('updater/iterator:main/order', 'updater/iterator:main/current_position',
                'updater/iterator:main/order_sampler/keys', 'updater/optimizer:main/t',
                'updater/optimizer:main/predictor/l1/W/m', 'extensions/LogReport/_log'):
        assert key in expected
    log_key = 'extensions/LogReport/_log'
    for key in expected:
        if key == log_key:
            assert _without_times(json.loads(str(actual[key]))) == \
                _without_times(json.loads(str(expected[key])))
        else:
            assert actual[key].dtype == expected[key].dtype, key
            assert actual[key].tobytes() == expected[key].tobytes(), key
    reference_log = json.loads((tmp_path / 'reference' / 'log').read_text())
    resumed_log = json.loads((tmp_path / 'run' / 'log').read_text())
    assert [entry['iteration'] for entry in resumed_log] == [3, 6, 9, 12, 15, 18]
    assert _without_times(resumed_log) == _without_times(reference_log)


def test_chainer_internal_search_names(tmp_path):
    for age, name in enumerate(['iter_10', 'iter_9', 'other_1', 'iter_100']):
        path = tmp_path / name
        path.write_bytes(b'')
        os.utime(path, (1_000_000 + age, 1_000_000 + age))
    entries = _snapshot._find_snapshot_files('iter_{}', str(tmp_path))
    assert [name for _, name in entries] == ['iter_10', 'iter_9', 'iter_100']
    assert [mtime for mtime, _ in entries] == [1_000_000, 1_000_001, 1_000_003]
    assert _snapshot._find_latest_snapshot('iter_{}', str(tmp_path)) == 'iter_100'
    assert _snapshot._find_latest_snapshot('none_{}', str(tmp_path)) is None
    assert list(_snapshot._find_stale_snapshots('iter_{}', str(tmp_path), 1)) == [
        'iter_10', 'iter_9']
    assert list(_snapshot._find_stale_snapshots('iter_{}', str(tmp_path), 5)) == []
