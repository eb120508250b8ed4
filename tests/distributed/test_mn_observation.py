"""ObservationAggregator and MultiNodeEarlyStoppingTrigger.

One-process tests use the dummy communicator (real trainers on tiny
datasets, and a stand-in trainer where only the observation and the
iteration matter); the MPI tests give every rank different values and check
the aggregates and the stopping iteration against NumPy and hand-computed
references.
"""

import math
import os
import tempfile
import types
import warnings

import numpy
import pytest
from tests.distributed import _helpers

import catena
import catena.distributed as dist
import catena.functions as F
from catena import serializers
from catena.distributed.extensions import MultiNodeEarlyStoppingTrigger, ObservationAggregator
from catena.iterators import SerialIterator
from catena.optimizers import SGD
from catena.training import PRIORITY_READER, Trainer, make_extension
from catena.training.extensions import LogReport
from catena.training.triggers import EarlyStoppingTrigger
from catena.training.updaters import StandardUpdater


@pytest.fixture(scope='module')
def comm(mpi_world):
    communicator = _helpers.make_communicator('naive', mpi_world)
    yield communicator
    communicator.finalize()


@pytest.fixture
def dummy():
    return dist.create_communicator('dummy')


@pytest.fixture
def out_dir():
    with tempfile.TemporaryDirectory(prefix='catena-mn-obs-') as path:
        yield path


# ------------------------------------------------------------------- helpers

class _BatchMean(catena.Link):
    """Reports the mean of its batch as 'value'; its loss has a zero gradient."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.w = catena.Parameter(numpy.zeros((1,), numpy.float32))

    def forward(self, x):
        catena.report({'value': float(x.mean())}, self)
        return F.sum(self.w) * 0.0


class _TableLoss(catena.Link):
    """Reports ``table[i]`` as 'loss' for the example holding the index i."""

    def __init__(self, table):
        super().__init__()
        self.table = list(table)
        with self.init_scope():
            self.w = catena.Parameter(numpy.zeros((1,), numpy.float32))

    def forward(self, x):
        catena.report({'loss': self.table[int(x[0, 0])]}, self)
        return F.sum(self.w) * 0.0


def _trainer(model, data, batch_size, stop_trigger, out):
    iterator = SerialIterator(data, batch_size, shuffle=False)
    optimizer = SGD(lr=0.0)
    optimizer.setup(model)
    return Trainer(StandardUpdater(iterator, optimizer), stop_trigger, out=out)


def _recorder(trainer, keys):
    """Records ``{iteration: {key: value}}`` of the observation after every iteration."""
    seen = {}

    @make_extension(trigger=(1, 'iteration'), priority=PRIORITY_READER)
    def record(t):
        seen[t.updater.iteration] = {key: t.observation[key] for key in keys
                                     if key in t.observation}

    trainer.extend(record, name='record')
    return seen


class _Stand:
    """A stand-in trainer: an updater position and this iteration's observation."""

    def __init__(self):
        self.updater = types.SimpleNamespace(iteration=0, epoch=0, epoch_detail=0.0,
                                             previous_epoch_detail=None)
        self.observation = {}

    def step(self, observation):
        self.updater.iteration += 1
        self.updater.epoch_detail = self.updater.iteration / 100
        self.observation = dict(observation)
        return self


def _run(extension, observations):
    """Calls ``extension`` once per observation; returns the observations it left."""
    stand = _Stand()
    results = []
    for observation in observations:
        extension(stand.step(observation))
        results.append(stand.observation)
    return results


def _save_and_load(obj, fresh, folder):
    path = os.path.join(folder, 'state.npz')
    serializers.save_npz(path, obj)
    serializers.load_npz(path, fresh)
    with numpy.load(path) as stored:
        return set(stored.files)


# --------------------------------------------------- aggregator, one process

def test_aggregator_arguments_are_checked(dummy):
    with pytest.raises(TypeError, match='comm'):
        ObservationAggregator(None, 'main/loss')
    with pytest.raises(TypeError, match='original_key'):
        ObservationAggregator(dummy, 3)
    with pytest.raises(TypeError, match='aggregated_key'):
        ObservationAggregator(dummy, 'main/loss', 1.0)
    with pytest.raises(ValueError, match='comm_trigger'):
        ObservationAggregator(dummy, 'main/loss', comm_trigger=(1, 'day'))
    with pytest.raises(ValueError, match='comm_trigger'):
        ObservationAggregator(dummy, 'main/loss', comm_trigger=5)
    with pytest.raises(TypeError, match='aggregator'):
        ObservationAggregator(dummy, 'main/loss', aggregator='mean')
    agg = ObservationAggregator(dummy, 'main/loss')
    assert agg.aggregated_key == 'main/loss'
    assert agg.priority == catena.training.PRIORITY_EDITOR
    assert agg.trigger == (1, 'iteration')


def test_aggregator_in_a_trainer_feeds_log_report(dummy, out_dir):
    data = numpy.arange(12, dtype=numpy.float32)[:, None] * 1.5 + 0.25
    trainer = _trainer(_BatchMean(), data, 2, (12, 'iteration'), out_dir)
    trainer.extend(ObservationAggregator(dummy, 'main/value', 'main/value_agg',
                                         comm_trigger=(3, 'iteration')))
    log = LogReport(trigger=(3, 'iteration'), filename=None)
    trainer.extend(log)
    seen = _recorder(trainer, ['main/value', 'main/value_agg'])
    trainer.run()

    batch_means = [data[(2 * i) % 12:(2 * i) % 12 + 2].mean() for i in range(12)]
    expected = [numpy.mean(batch_means[k:k + 3]) for k in range(0, 12, 3)]
    aggregated_at = sorted(it for it, obs in seen.items() if 'main/value_agg' in obs)
    assert aggregated_at == [3, 6, 9, 12]
    for it, obs in seen.items():
        numpy.testing.assert_allclose(obs['main/value'], batch_means[it - 1], rtol=1e-6)
    numpy.testing.assert_allclose([seen[it]['main/value_agg'] for it in aggregated_at],
                                  expected, rtol=1e-6)
    assert [entry['iteration'] for entry in log.log] == [3, 6, 9, 12]
    numpy.testing.assert_allclose([entry['main/value_agg'] for entry in log.log], expected,
                                  rtol=1e-6)


def test_default_key_replaces_the_value_where_the_trigger_fires(dummy):
    agg = ObservationAggregator(dummy, 'loss', comm_trigger=(2, 'iteration'))
    results = _run(agg, [{'loss': 1.0}, {'loss': 4.0}, {'loss': 2.0}, {'loss': 8.0}])
    assert [r['loss'] for r in results] == [1.0, 2.5, 2.0, 5.0]
    assert agg.observation_history == []


def test_aggregator_skips_missing_values_and_reports_nothing_without_any(dummy):
    agg = ObservationAggregator(dummy, 'loss', 'mean', comm_trigger=(3, 'iteration'))
    results = _run(agg, [{'loss': 3.0}, {}, {'loss': 6.0}, {}, {}, {'other': 1.0}])
    assert results[2]['mean'] == pytest.approx(4.5)
    assert 'mean' not in results[5]
    assert all('mean' not in r for i, r in enumerate(results) if i != 2)


def test_aggregator_takes_variables_and_averages_arrays_elementwise(dummy):
    values = [numpy.array([1.0, 10.0], numpy.float32), numpy.array([3.0, 20.0], numpy.float32)]
    agg = ObservationAggregator(dummy, 'v', 'm', comm_trigger=(2, 'iteration'))
    results = _run(agg, [{'v': catena.Variable(values[0])}, {'v': values[1]}])
    numpy.testing.assert_allclose(results[1]['m'], numpy.mean(numpy.stack(values), axis=0))
    assert results[1]['m'].dtype == numpy.float32
    agg = ObservationAggregator(dummy, 'v', 'm', comm_trigger=(2, 'iteration'))
    with pytest.raises(ValueError, match='different shapes'):
        _run(agg, [{'v': numpy.zeros(2)}, {'v': numpy.zeros(3)}])


def test_custom_aggregator_gets_the_per_rank_lists(dummy):
    calls = []

    def largest(per_rank):
        calls.append(per_rank)
        return max(max(values) for values in per_rank if values)

    agg = ObservationAggregator(dummy, 'v', 'top', comm_trigger=(2, 'iteration'),
                                aggregator=largest)
    results = _run(agg, [{'v': 3.0}, {'v': 7.0}, {}, {}])
    assert calls == [[[3.0, 7.0]]]  # not called when nobody has a value
    assert results[1]['top'] == 7.0
    silent = ObservationAggregator(dummy, 'v', 'top', aggregator=lambda per_rank: None)
    assert 'top' not in _run(silent, [{'v': 1.0}])[0]


def test_aggregator_history_survives_a_snapshot(dummy, out_dir):
    values = [0.5, 2.0, 3.5, 1.0, 7.0, 2.5]
    agg = ObservationAggregator(dummy, 'v', 'm', comm_trigger=(4, 'iteration'))
    stand = _Stand()
    for value in values[:2]:
        agg(stand.step({'v': numpy.float32(value)}))
    resumed = ObservationAggregator(dummy, 'v', 'm', comm_trigger=(4, 'iteration'))
    keys = _save_and_load(agg, resumed, out_dir)
    assert keys == {'observation_history', 'comm_trigger/previous_iteration',
                    'comm_trigger/previous_epoch_detail'}
    assert [float(v) for v in resumed.observation_history] == values[:2]
    outputs = {}
    for name, extension in (('original', agg), ('resumed', resumed)):
        copy = _Stand()
        copy.updater.iteration = 2
        outputs[name] = [r.get('m') for r in
                         (_step_and_call(extension, copy, {'v': v}) for v in values[2:])]
    assert outputs['original'] == outputs['resumed']
    assert outputs['resumed'][1] == pytest.approx(numpy.mean(values[:4]))
    assert outputs['resumed'][0] is None and outputs['resumed'][2] is None


def _step_and_call(extension, stand, observation):
    extension(stand.step(observation))
    return stand.observation


def test_aggregator_empty_history_round_trip_and_shape_error(dummy, out_dir):
    agg = ObservationAggregator(dummy, 'v')
    resumed = ObservationAggregator(dummy, 'v')
    resumed.observation_history = [1.0]
    _save_and_load(agg, resumed, out_dir)
    assert resumed.observation_history == []
    agg.observation_history = [numpy.zeros(2), numpy.zeros(3)]
    with pytest.raises(ValueError, match='different shapes'):
        serializers.save_npz(os.path.join(out_dir, 'bad.npz'), agg)


# ------------------------------------------------ early stopping, one process

def test_early_stopping_arguments_are_checked(dummy):
    with pytest.raises(TypeError, match='comm'):
        MultiNodeEarlyStoppingTrigger(object())
    with pytest.raises(TypeError, match='monitor'):
        MultiNodeEarlyStoppingTrigger(dummy, monitor=None)
    with pytest.raises(ValueError, match='min_delta'):
        MultiNodeEarlyStoppingTrigger(dummy, min_delta=-0.1)
    with pytest.raises(ValueError, match='min_delta'):
        MultiNodeEarlyStoppingTrigger(dummy, min_delta=float('nan'))
    with pytest.raises(ValueError, match='check_trigger'):
        MultiNodeEarlyStoppingTrigger(dummy, check_trigger=(0, 'epoch'))
    with pytest.raises(ValueError, match='max_trigger'):
        MultiNodeEarlyStoppingTrigger(dummy, max_trigger='forever')
    with pytest.raises(ValueError, match='mode'):
        MultiNodeEarlyStoppingTrigger(dummy, mode='lower')
    with pytest.raises(TypeError, match='patients'):
        MultiNodeEarlyStoppingTrigger(dummy, patience=2, patients=3)
    assert MultiNodeEarlyStoppingTrigger(dummy, patients=5).early_stopping.patience == 5
    trigger = MultiNodeEarlyStoppingTrigger(dummy, max_trigger=(30, 'iteration'))
    assert trigger.get_training_length() == (30, 'iteration')


def _decisions(trigger, values):
    stand = _Stand()
    out = [trigger(stand)]
    for value in values:
        out.append(trigger(stand.step({} if value is None else {'main/loss': value})))
    return out


def test_one_process_decides_like_the_core_trigger(dummy):
    values = [5.0, 4.0, 4.5, 3.0, None, 3.5, 3.2, 3.1, 3.3, 2.0, 3.0, 3.0, 3.0, 3.0]
    options = dict(check_trigger=(2, 'iteration'), patience=2,
                   max_trigger=(40, 'iteration'))
    mine = _decisions(MultiNodeEarlyStoppingTrigger(dummy, **options), values)
    core = _decisions(EarlyStoppingTrigger(**options), values)
    assert mine == core
    # Interval means: 4.5, 3.75, 3.5, 3.15, 2.65, 3.0, 3.0 -> the sixth and
    # seventh checks do not improve: stop at iteration 14.
    assert mine.index(True) == 14


def test_real_trainer_stops_early(dummy, out_dir):
    table = [3.0, 2.0, 1.0, 1.5, 1.0, 0.5] + [9.0] * 24
    trigger = MultiNodeEarlyStoppingTrigger(dummy, check_trigger=(1, 'iteration'),
                                            patience=3, max_trigger=(30, 'iteration'))
    data = numpy.arange(30, dtype=numpy.float32)[:, None]
    trainer = _trainer(_TableLoss(table), data, 1, trigger, out_dir)
    trainer.run()
    # Best 0.5 at iteration 6; iterations 7, 8, 9 do not improve.
    assert trainer.updater.iteration == 9
    assert trigger.early_stopping.best == 0.5


def test_min_delta_ignores_small_improvements(dummy):
    losses = [10.0 - 0.05 * i for i in range(20)]
    plain = _decisions(MultiNodeEarlyStoppingTrigger(
        dummy, check_trigger=(1, 'iteration'), patience=3, max_trigger=(20, 'iteration')),
        losses)
    assert plain.index(True) == 20  # always improving: max_trigger stops it
    strict = MultiNodeEarlyStoppingTrigger(dummy, check_trigger=(1, 'iteration'), patience=3,
                                           max_trigger=(20, 'iteration'), min_delta=0.2)
    decisions = _decisions(strict, losses[:4])
    # best 10.0 at the first check; 9.95, 9.90 and 9.85 improve by less than
    # 0.2: stop at the fourth iteration.
    assert decisions == [False] * 4 + [True]
    assert strict.early_stopping.best == 10.0

    accuracies = [0.5, 0.55, 0.7, 0.71, 0.72, 0.73, 0.9]
    maximizing = MultiNodeEarlyStoppingTrigger(
        dummy, check_trigger=(1, 'iteration'), monitor='main/accuracy', patience=3,
        max_trigger=(20, 'iteration'), min_delta=0.1)
    stand = _Stand()
    stops = [maximizing(stand.step({'main/accuracy': a})) for a in accuracies]
    # 0.5 -> 0.55 no, 0.7 yes (best 0.7), 0.71, 0.72, 0.73 no: stop at the sixth.
    assert stops.index(True) == 5


def test_nothing_observed_warns_and_does_not_stop(dummy):
    trigger = MultiNodeEarlyStoppingTrigger(dummy, check_trigger=(1, 'iteration'), patience=1,
                                            max_trigger=(5, 'iteration'))
    stand = _Stand()
    with pytest.warns(UserWarning, match='main/loss'):
        assert trigger(stand.step({})) is False
    assert trigger.early_stopping.best == math.inf


def test_early_stopping_state_survives_a_snapshot(dummy, out_dir):
    values = [4.0, 3.0, 2.0, 2.9, 3.1, 2.0, 3.5, 3.6, 3.7, 3.8, 3.9, 4.0, 4.1, 4.2]
    options = dict(check_trigger=(3, 'iteration'), patience=2,
                   max_trigger=(40, 'iteration'))
    original = MultiNodeEarlyStoppingTrigger(dummy, **options)
    stand = _Stand()
    original(stand)
    for value in values[:4]:  # one check done, one value into the next interval
        original(stand.step({'main/loss': value}))
    resumed = MultiNodeEarlyStoppingTrigger(dummy, **options)
    keys = _save_and_load(original, resumed, out_dir)
    core = EarlyStoppingTrigger(**options)
    serializer = serializers.DictionarySerializer()
    core.serialize(serializer)
    assert set(serializer.target) | {'local_sum', 'local_count'} == keys
    assert (resumed.early_stopping.best, resumed.early_stopping.count) == (3.0, 0)
    decisions = {}
    for name, trigger in (('original', original), ('resumed', resumed)):
        copy = _Stand()
        copy.updater.iteration = 4
        decisions[name] = [trigger(copy.step({'main/loss': v})) for v in values[4:]]
    assert decisions['original'] == decisions['resumed']
    # Checks at 6 (mean 2.667: best), 9 (3.6), 12 (3.9): stop at iteration 12.
    assert decisions['resumed'].index(True) + 5 == 12


# --------------------------------------------------------------------- MPI

def test_mpi_aggregator_is_the_mean_over_ranks_and_iterations(comm, out_dir):
    offset = 10.0 * comm.rank
    data = numpy.arange(8, dtype=numpy.float32)[:, None] + offset
    trainer = _trainer(_BatchMean(), data, 2, (8, 'iteration'), out_dir)
    trainer.extend(ObservationAggregator(comm, 'main/value', 'main/value_agg',
                                         comm_trigger=(2, 'iteration')))
    seen = _recorder(trainer, ['main/value', 'main/value_agg'])
    trainer.run()

    base = numpy.arange(8, dtype=numpy.float64)
    per_rank = numpy.array([[(base[(2 * i) % 8:(2 * i) % 8 + 2] + 10.0 * r).mean()
                             for i in range(8)] for r in range(comm.size)])
    expected = [per_rank[:, k:k + 2].mean() for k in range(0, 8, 2)]
    numpy.testing.assert_allclose([seen[it]['main/value'] for it in range(1, 9)],
                                  per_rank[comm.rank])
    got = [seen[it].get('main/value_agg') for it in range(1, 9)]
    assert got[0::2] == [None] * 4
    numpy.testing.assert_allclose(got[1::2], expected)
    assert comm.allgather_obj(got) == [got] * comm.size


def test_mpi_aggregator_with_ranks_without_values(comm):
    agg = ObservationAggregator(comm, 'v', 'm')
    stand = _Stand()
    has_value = comm.rank % 2 == 0
    agg(stand.step({'v': float(comm.rank + 1)} if has_value else {}))
    observers = [r for r in range(comm.size) if r % 2 == 0]
    assert stand.observation['m'] == pytest.approx(numpy.mean([r + 1.0 for r in observers]))
    agg(stand.step({}))  # nobody has a value: nothing is written, nobody hangs
    assert 'm' not in stand.observation


def test_mpi_custom_aggregator_sees_the_lists_in_rank_order(comm):
    agg = ObservationAggregator(comm, 'v', 'lists', comm_trigger=(3, 'iteration'),
                                aggregator=lambda per_rank: per_rank)
    pooled = ObservationAggregator(comm, 'v', 'mean', comm_trigger=(3, 'iteration'))
    stand = _Stand()
    for i in range(3):
        observation = {'v': 100.0 * comm.rank + i} if i <= comm.rank else {}
        stand.step(observation)
        agg(stand)
        pooled(stand)
    expected = [[100.0 * r + i for i in range(min(r, 2) + 1)] for r in range(comm.size)]
    assert stand.observation['lists'] == expected
    flat = [value for values in expected for value in values]
    assert stand.observation['mean'] == pytest.approx(numpy.mean(flat))


def _early_stopping_run(comm, out_dir, table):
    trigger = MultiNodeEarlyStoppingTrigger(comm, check_trigger=(1, 'iteration'), patience=2,
                                            max_trigger=(30, 'iteration'))
    data = numpy.arange(30, dtype=numpy.float32)[:, None]
    trainer = _trainer(_TableLoss(table), data, 1, trigger, out_dir)
    trainer.run()
    return trainer.updater.iteration, trigger


def test_mpi_early_stopping_stops_every_rank_at_the_same_iteration(comm, out_dir):
    # Rank 0's loss is flat (alone it would stop after iteration 3); the
    # others' falls until iteration 5. The mean over the ranks improves
    # until iteration 5, then checks 6 and 7 do not improve: stop at 7.
    falling = [10.0 - i for i in range(1, 6)] + [5.0] * 25
    table = [1.0] * 30 if comm.rank == 0 else falling
    iteration, trigger = _early_stopping_run(comm, out_dir, table)
    n = comm.size
    expected = 7 if n > 1 else 3
    assert iteration == expected
    assert comm.allgather_obj(iteration) == [expected] * n
    assert trigger.early_stopping.best == pytest.approx((1.0 + (n - 1) * 5.0) / n)
    assert comm.allgather_obj(trigger.early_stopping.best) == [trigger.early_stopping.best] * n


def test_mpi_early_stopping_is_not_rank_zeros_decision(comm, out_dir):
    # Rank 0's loss falls all along (alone it would run to max_trigger); the
    # last rank's jumps up at iteration 4 by more than the others' gains, so
    # the mean stops improving after iteration 3: stop at 5 on every rank.
    n = comm.size
    if comm.rank == 0:
        table = [10.0 - 0.1 * i for i in range(30)]
    elif comm.rank == n - 1:
        table = [10.0] * 3 + [10.0 + 10.0 * n] * 27
    else:
        table = [10.0] * 30
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        iteration, _ = _early_stopping_run(comm, out_dir, table)
    expected = 5 if n > 1 else 30
    assert comm.allgather_obj(iteration) == [expected] * n
