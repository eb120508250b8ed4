"""Chainer's smaller testing helpers: conditions, warnings, matrices, mock trainers, arrays."""

# Tests draw from NumPy's global generator, which fix_random seeds.
# ruff: noqa: NPY002, B028

import importlib
import math
import unittest
import warnings

import numpy as np
import pytest

import catena
from catena import testing
from catena.testing import array as testing_array, attr, condition, matrix

# ------------------------------------------------------------------------------ condition

def _always_fails():
    raise AssertionError('the first reason')


def test_condition_failure_names_the_first_error():
    with pytest.raises(AssertionError, match='first error message:(.|\n)*the first reason'):
        condition.repeat(3)(_always_fails)()
    with pytest.raises(AssertionError, match='first error message:'):
        condition.retry(2)(lambda: 1 / 0)()


def test_condition_turns_pytest_skips_into_unittest_skips_after_one_trial():
    calls = []

    def skipped():
        calls.append(1)
        pytest.skip('not on this machine')

    with pytest.raises(unittest.SkipTest, match='not on this machine'):
        condition.repeat(5)(skipped)()
    assert calls == [1]


def test_condition_rejects_impossible_counts_as_assertion_and_value_errors():
    with pytest.raises(AssertionError):
        condition.repeat_with_success_at_least(10, 11)
    with pytest.raises(ValueError):
        condition.repeat_with_success_at_least(3, -1)
    assert issubclass(condition.InvalidTrialsError, AssertionError)


# ----------------------------------------------------------------------------- assert_warns

def test_assert_warns_passes_on_the_category_or_a_subclass():
    with testing.assert_warns(UserWarning) as caught:
        warnings.warn('deprecated', DeprecationWarning)
        warnings.warn('plain', UserWarning)
    assert len(caught) == 2
    with testing.assert_warns(Warning):
        warnings.warn('anything', RuntimeWarning)


def test_assert_warns_fails_without_the_warning():
    with pytest.raises(AssertionError, match='DeprecationWarning was not issued.*UserWarning'):
        with testing.assert_warns(DeprecationWarning):
            warnings.warn('other', UserWarning)


def test_assert_warns_sees_warnings_that_filters_would_hide():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with testing.assert_warns(RuntimeWarning):
            warnings.warn('hidden', RuntimeWarning)


# ------------------------------------------------------------------------------------ attr

def test_attr_markers_include_chainerx():
    for name in ('gpu', 'cudnn', 'ideep', 'slow', 'chainerx'):
        assert getattr(attr, name).name == name
    assert attr.multi_gpu(2).args == (2,)
    with pytest.raises(AttributeError):
        attr.tpu  # noqa: B018


# ---------------------------------------------------------------------------------- matrix

@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize('shape,values_shape', [
    ((3, 3), (3,)), ((2, 4), (2,)), ((4, 2), (2,)), ((2, 3, 4), (2, 3)), ((2, 3, 3), ()),
])
def test_generate_matrix_has_the_singular_values(dtype, shape, values_shape):
    values = np.random.uniform(0.5, 1.5, values_shape)
    x = testing.generate_matrix(shape, dtype=dtype, singular_values=values)
    assert x.shape == shape and x.dtype == dtype
    got = np.linalg.svd(x.astype(np.complex128), compute_uv=False)
    wanted = np.sort(np.broadcast_to(values, got.shape), axis=-1)[..., ::-1]
    np.testing.assert_allclose(got, wanted, rtol=1e-5)


def test_generate_matrix_with_empty_shapes():
    assert testing.generate_matrix((0, 2, 3), singular_values=np.ones((0, 2))).shape == (0, 2, 3)
    assert testing.generate_matrix((0, 0), singular_values=np.ones(0)).shape == (0, 0)


def test_generate_matrix_is_reproducible_under_fix_random():
    draw = testing.fix_random(seed=3)(
        lambda: testing.generate_matrix((3, 3), singular_values=[1, 2, 3]))
    np.testing.assert_array_equal(draw(), draw())


@pytest.mark.parametrize('kwargs,error', [
    ({'shape': (2, 2)}, TypeError),
    ({'shape': (2,), 'singular_values': 1}, ValueError),
    ({'shape': (2, 2), 'dtype': np.int32, 'singular_values': 1}, TypeError),
    ({'shape': (2, 2), 'singular_values': 1 + 0j}, TypeError),
    ({'shape': (2, 2), 'singular_values': [1, -1]}, ValueError),
    ({'shape': (2, 2), 'singular_values': np.ones(3)}, ValueError),
    ({'shape': (0, 2, 2), 'singular_values': np.ones(3)}, ValueError),
])
def test_generate_matrix_rejects_bad_arguments(kwargs, error):
    with pytest.raises(error):
        testing.generate_matrix(**kwargs)


def test_matrix_broadcast_helper():
    assert matrix._broadcast_to(np.ones(2), (3, 2)).shape == (3, 2)


# ------------------------------------------------------------------------ mock-updater trainer

@pytest.mark.parametrize('stop_trigger', [(5, 'iteration'), (5, 'epoch')])
@pytest.mark.parametrize('iter_per_epoch', [0.5, 1, 1.5, 5])
def test_trainer_with_mock_updater_counts_like_an_updater(stop_trigger, iter_per_epoch):
    trainer = testing.get_trainer_with_mock_updater(stop_trigger, iter_per_epoch)
    seen = []

    def record(trainer):
        updater = trainer.updater
        seen.append((updater.iteration, updater.epoch, updater.epoch_detail,
                     updater.is_new_epoch, updater.previous_epoch_detail))

    trainer.extend(record)
    trainer.run()
    for iteration, (count, epoch, detail, new_epoch, previous) in enumerate(seen, 1):
        assert count == iteration
        assert epoch == iteration // iter_per_epoch
        assert detail == iteration / iter_per_epoch
        assert previous == (iteration - 1) / iter_per_epoch
        assert new_epoch == ((iteration - 1) // iter_per_epoch != epoch)
    wanted = 5 if stop_trigger[1] == 'iteration' else math.ceil(5 * iter_per_epoch)
    assert len(seen) == wanted
    assert trainer.updater.update_core.call_count == wanted


def test_trainer_with_mock_updater_takes_extensions_and_optimizers():
    calls = []
    trainer = testing.training.get_trainer_with_mock_updater(
        (2, 'iteration'), extensions=[lambda trainer: calls.append(1)])
    assert len(trainer._extensions) == 1
    trainer.updater.get_optimizer.return_value = 'the optimizer'
    assert trainer.updater.get_optimizer('main') == 'the optimizer'
    trainer.run()
    assert calls == [1, 1]
    with pytest.raises(ValueError, match='iter_per_epoch'):
        testing.get_trainer_with_mock_updater(iter_per_epoch=0)


# ---------------------------------------------------------------------------------- arrays

def test_as_noncontiguous_array_keeps_values_and_breaks_contiguity():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = testing_array._as_noncontiguous_array(x)
    np.testing.assert_array_equal(x, y)
    assert not y.flags.c_contiguous and not y.flags.f_contiguous
    a, b, none = testing_array._as_noncontiguous_array((x, x[:1, :1], None))
    assert not a.flags.c_contiguous and b.shape == (1, 1) and none is None


# ------------------------------------------------------------------------ modules and names

@pytest.mark.parametrize('name', ['array', 'attr', 'backend', 'condition', 'function_link',
                                  'helper', 'matrix', 'parameterized', 'training'])
def test_submodules_are_importable_and_attributes(name):
    module = importlib.import_module(f'catena.testing.{name}')
    assert getattr(testing, name, module) is module


def test_chainer_public_names_exist():
    names = ['assert_allclose', 'BackendConfig', 'inject_backend_tests', 'distribution_unittest',
             'FunctionTestCase', 'FunctionTestError', 'InitializerArgument',
             'LinkInitializersTestCase', 'LinkTestCase', 'LinkTestError', 'assert_warns',
             'patch', 'with_requires', 'without_requires', 'generate_matrix',
             'from_pytest_parameterize', 'parameterize', 'parameterize_pytest', 'product',
             'product_dict', 'fix_random', 'generate_seed', 'save_and_load',
             'save_and_load_hdf5', 'save_and_load_npz', 'get_trainer_with_mock_updater',
             'unary_math_function_unittest', 'run_module']
    missing = [name for name in names if not hasattr(testing, name)]
    assert missing == []
    with pytest.raises(AttributeError):
        testing.no_such_helper  # noqa: B018


class _Value:
    def __init__(self, value):
        self.value = value

    def serialize(self, serializer):
        self.value = serializer('value', self.value)


def test_save_and_load_npz_round_trips():
    source, target = _Value(np.arange(3)), _Value(np.zeros(3, dtype=np.int64))
    testing.save_and_load_npz(source, target)
    np.testing.assert_array_equal(target.value, np.arange(3))
    link = catena.links.Linear(2, 3)
    other = catena.links.Linear(2, 3)
    testing.save_and_load_npz(link, other)
    np.testing.assert_array_equal(link.W.array, other.W.array)
