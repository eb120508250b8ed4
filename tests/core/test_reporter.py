"""Reporter, report, report_scope, get_current_reporter, Summary and DictSummary."""

import importlib.util
import pathlib
import threading

import numpy as np
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena import reporter as reporter_module
from catena.reporter import DictSummary, Reporter, Summary

_spec = importlib.util.spec_from_file_location(
    '_training_fakes', pathlib.Path(__file__).parent / 'training' / '_fakes.py')
fakes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fakes)


# ----------------------------------------------------------------- Reporter


def test_observer_name_prefixes_keys():
    reporter = Reporter()
    observer = object()
    reporter.add_observer('my_observer:', observer)
    observation = {}
    with reporter.scope(observation):
        reporter.report({'x': 1}, observer)
    assert observation == {'my_observer:/x': 1}


def test_module_report_writes_to_the_current_reporter():
    reporter = Reporter()
    observer = object()
    reporter.add_observer('main', observer)
    observation = {}
    with reporter.scope(observation):
        catena.reporter.report({'loss': 2.0}, observer)
        catena.reporter.report({'epoch': 3})
    assert observation == {'main/loss': 2.0, 'epoch': 3}


def test_report_outside_any_reporter_is_a_no_op():
    reporter = Reporter()
    observer = object()
    reporter.add_observer('main', observer)
    reporter_module.report({'x': 1}, observer)
    reporter_module.report({'x': 1})
    assert reporter.observation == {}
    with pytest.raises(IndexError, match='no reporter'):
        reporter_module.get_current_reporter()


def test_with_statement_makes_the_reporter_current():
    reporter = Reporter()
    with reporter as entered:
        assert entered is reporter
        assert reporter_module.get_current_reporter() is reporter
        reporter_module.report({'a': 1})
    assert reporter.observation == {'a': 1}
    with pytest.raises(IndexError):
        reporter_module.get_current_reporter()


def test_nested_scopes_and_reporters():
    outer, inner = Reporter(), Reporter()
    outer_observation, inner_observation, nested_observation = {}, {}, {}
    with outer.scope(outer_observation):
        reporter_module.report({'a': 1})
        with inner.scope(inner_observation):
            assert reporter_module.get_current_reporter() is inner
            reporter_module.report({'b': 2})
            with reporter_module.report_scope(nested_observation):
                reporter_module.report({'c': 3})
            assert inner.observation is inner_observation
            reporter_module.report({'d': 4})
        assert reporter_module.get_current_reporter() is outer
        reporter_module.report({'e': 5})
    assert outer_observation == {'a': 1, 'e': 5}
    assert inner_observation == {'b': 2, 'd': 4}
    assert nested_observation == {'c': 3}
    assert outer.observation == {} and inner.observation == {}


def test_scope_restores_state_after_an_error():
    reporter = Reporter()
    original = reporter.observation
    with pytest.raises(RuntimeError), reporter.scope({}):
        raise RuntimeError('boom')
    assert reporter.observation is original
    with pytest.raises(IndexError):
        reporter_module.get_current_reporter()


def test_report_scope_without_a_reporter_raises():
    with pytest.raises(IndexError, match='no reporter'), reporter_module.report_scope({}):
        pass


def test_unregistered_observer_is_a_key_error():
    reporter = Reporter()
    with reporter.scope({}), pytest.raises(KeyError, match='not registered'):
        reporter.report({'x': 1}, object())


def test_add_observers_with_link_names():
    model = L.Classifier(L.Linear(3, 2))
    reporter = Reporter()
    reporter.add_observer('main', model)
    reporter.add_observers('main', model.namedlinks(skipself=True))
    observation = {}
    with reporter.scope(observation):
        reporter_module.report({'sum': 1.0}, model.predictor)
    assert observation == {'main/predictor/sum': 1.0}


def test_bad_observer_names():
    reporter = Reporter()
    with pytest.raises(TypeError, match='name'):
        reporter.add_observer(1, object())
    with pytest.raises(TypeError, match='prefix'):
        reporter.add_observers(None, [])


def test_reported_variables_stay_arrays_cut_from_the_graph():
    x = catena.Variable(np.array([1.0, 2.0], dtype=np.float32))
    loss = F.sum(x * x)
    observation = {}
    with Reporter().scope(observation):
        reporter_module.report({'loss': loss})
    reported = observation['loss']
    assert isinstance(reported, catena.Variable)
    assert reported is not loss
    assert reported.array is loss.array
    assert reported.creator is None
    assert loss.creator is not None  # the original keeps its graph


def test_keep_graph_on_report_keeps_the_variable():
    x = catena.Variable(np.array([1.0, 2.0], dtype=np.float32))
    loss = F.sum(x * x)
    observation = {}
    with catena.using_config('keep_graph_on_report', True), Reporter().scope(observation):
        reporter_module.report({'loss': loss})
    assert observation['loss'] is loss
    assert observation['loss'].creator is not None


def test_classifier_reports_main_loss_and_accuracy():
    rng = np.random.default_rng(0)
    model = L.Classifier(L.Linear(4, 3))
    x = rng.standard_normal((5, 4)).astype(np.float32)
    t = np.array([0, 1, 2, 1, 0], dtype=np.int32)
    reporter = Reporter()
    reporter.add_observer('main', model)
    reporter.add_observers('main', model.namedlinks(skipself=True))
    observation = {}
    with reporter.scope(observation):
        loss = model(x, t)
    assert set(observation) == {'main/loss', 'main/accuracy'}
    np.testing.assert_array_equal(observation['main/loss'].array, loss.array)
    np.testing.assert_array_equal(observation['main/accuracy'].array, model.accuracy.array)
    assert observation['main/loss'].creator is None
    # the loss still backpropagates: reporting did not cut the model's graph
    loss.backward()
    assert model.predictor.W.grad is not None


def test_the_reporter_stack_is_per_thread():
    main_reporter = Reporter()
    seen = {}

    def worker():
        seen['current_before'] = reporter_module._reporter_stack()[:]
        reporter_module.report({'from_thread': 1})  # no reporter in this thread: no-op
        thread_reporter = seen['thread_reporter'] = Reporter()
        with thread_reporter.scope(seen.setdefault('thread_observation', {})):
            reporter_module.report({'inside_thread': 2})
            seen['current'] = reporter_module.get_current_reporter()

    observation = {}
    with main_reporter.scope(observation):
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        assert reporter_module.get_current_reporter() is main_reporter
    assert seen['current_before'] == []
    assert observation == {}
    assert seen['thread_observation'] == {'inside_thread': 2}
    assert seen['current'] is seen['thread_reporter']


# ------------------------------------------------------------------ Summary


def test_summary_mean_and_std_against_numpy():
    values = np.random.default_rng(1).standard_normal(50)
    summary = Summary()
    for value in values:
        summary.add(value)
    np.testing.assert_allclose(summary.compute_mean(), values.mean(), rtol=1e-12)
    mean, std = summary.make_statistics()
    np.testing.assert_allclose(mean, values.mean(), rtol=1e-12)
    np.testing.assert_allclose(std, values.std(), rtol=1e-10)


def test_summary_weighted():
    values = np.array([1.0, 2.0, 4.0])
    weights = np.array([1.0, 3.0, 0.5])
    summary = Summary()
    for value, weight in zip(values, weights):
        summary.add(value, weight=weight)
    mean = np.average(values, weights=weights)
    std = np.sqrt(np.average((values - mean) ** 2, weights=weights))
    np.testing.assert_allclose(summary.make_statistics(), (mean, std), rtol=1e-12)


def test_summary_of_variables_and_zero_dim_float32_arrays():
    values = np.array([0.5, 1.5, 3.0], dtype=np.float32)
    summary = Summary()
    summary.add(catena.Variable(np.asarray(values[0])))
    summary.add(np.asarray(values[1]))
    summary.add(catena.Variable(np.asarray(values[2])), weight=2.0)
    expected = np.average(values, weights=[1, 1, 2])
    np.testing.assert_allclose(summary.compute_mean(), expected, rtol=1e-6)
    assert not isinstance(summary.compute_mean(), catena.Variable)


def test_summary_with_a_variable_weight_gives_a_variable_mean():
    # As in Chainer: the weight takes part in the sums as it is.
    summary = Summary()
    summary.add(1.0, 0.5)
    summary.add(3.0, catena.Variable(np.asarray(0.5)))
    mean = summary.compute_mean()
    assert isinstance(mean, catena.Variable)
    np.testing.assert_allclose(mean.array, 2.0)


def test_summary_std_of_constant_values_is_zero_not_nan():
    summary = Summary()
    for _ in range(3):
        summary.add(0.1)
    mean, std = summary.make_statistics()
    assert mean == pytest.approx(0.1)
    assert std == 0.0


def test_empty_summary_cannot_be_computed():
    with pytest.raises(ZeroDivisionError, match='empty'):
        Summary().compute_mean()
    with pytest.raises(ZeroDivisionError, match='empty'):
        Summary().make_statistics()


def save(obj):
    target = {}
    obj.serialize(fakes.DictSerializer(target))
    return target


def test_summary_serialize_round_trip():
    summary = Summary()
    for value in (1.0, 2.0, 6.0):
        summary.add(value)
    stored = save(summary)
    assert set(stored) == {'_x', '_x2', '_n'}
    loaded = Summary()
    loaded.serialize(fakes.DictDeserializer(stored))
    assert loaded.compute_mean() == pytest.approx(3.0)
    loaded.add(3.0)
    summary.add(3.0)
    np.testing.assert_allclose(loaded.make_statistics(), summary.make_statistics())


def test_summary_without_stored_keys_warns_and_keeps_its_state():
    summary = Summary()
    summary.add(2.0)
    with pytest.warns(UserWarning, match='_x'):
        summary.serialize(fakes.DictDeserializer({'_x': np.asarray(9.0)}))
    assert summary.compute_mean() == 2.0


# -------------------------------------------------------------- DictSummary


def test_dict_summary_means_and_statistics_against_numpy():
    rng = np.random.default_rng(2)
    a = rng.standard_normal(20)
    b = rng.standard_normal(20).astype(np.float32)
    summary = DictSummary()
    for i in range(20):
        summary.add({'a': a[i], 'b': catena.Variable(np.asarray(b[i]))})
    means = summary.compute_mean()
    assert set(means) == {'a', 'b'}
    np.testing.assert_allclose(means['a'], a.mean(), rtol=1e-12)
    np.testing.assert_allclose(means['b'], b.mean(), rtol=1e-5)
    statistics = summary.make_statistics()
    assert set(statistics) == {'a', 'a.std', 'b', 'b.std'}
    np.testing.assert_allclose(statistics['a.std'], a.std(), rtol=1e-10)
    np.testing.assert_allclose(statistics['b.std'], b.astype(np.float64).std(), rtol=1e-4)


def test_dict_summary_skips_values_that_are_not_scalars():
    summary = DictSummary()
    summary.add({'x': 1.0, 'vector': np.ones(3), 'text': 'hello', 'none': None,
                 'zero_dim': np.asarray(3.0), 'int': 2, 'np_int': np.int64(4),
                 'variable_vector': catena.Variable(np.ones(2, dtype=np.float32)),
                 'string_array': np.asarray('x')})
    assert set(summary.compute_mean()) == {'x', 'zero_dim', 'int', 'np_int'}


def test_dict_summary_weighted_tuples():
    summary = DictSummary()
    summary.add({'x': (1.0, 3)})
    summary.add({'x': (5.0, catena.Variable(np.asarray(1.0)))})
    assert summary.compute_mean()['x'] == pytest.approx(2.0)
    with pytest.raises(ValueError, match="weight given to 'x'"):
        summary.add({'x': (1.0, np.ones(2))})
    with pytest.raises(ValueError, match='pair'):
        summary.add({'x': (1.0, 2.0, 3.0)})


def test_dict_summary_serialize_round_trip():
    summary = DictSummary()
    summary.add({'main/loss': 1.0, 'main/accuracy': 0.5})
    summary.add({'main/loss': 3.0})
    stored = save(summary)
    assert set(stored) == {'_names'} | {f'_summaries/{i}/{key}' for i in range(2)
                                        for key in ('_x', '_x2', '_n')}
    loaded = DictSummary()
    loaded.add({'stale': 7.0})
    loaded.serialize(fakes.DictDeserializer(stored))
    assert loaded.compute_mean() == pytest.approx({'main/loss': 2.0, 'main/accuracy': 0.5})
    np.testing.assert_allclose(loaded.make_statistics()['main/loss.std'], 1.0)


def test_dict_summary_without_names_warns_and_starts_empty():
    summary = DictSummary()
    summary.add({'x': 1.0})
    with pytest.warns(UserWarning, match='_names'):
        summary.serialize(fakes.DictDeserializer({}))
    assert summary.compute_mean() == {}
