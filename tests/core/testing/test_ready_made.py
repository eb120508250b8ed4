"""The ready-made test classes: distribution_unittest and unary_math_function_unittest."""

# Tests draw from NumPy's global generator, which fix_random seeds.
# ruff: noqa: NPY002

import unittest
import warnings

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import distributions, testing
from catena.testing import distribution

pytest.importorskip('scipy')


# --------------------------------------------------------------------- distribution_unittest

class _NormalBase(testing.distribution_unittest):
    """Normal against scipy.stats.norm; subclasses pick what to break."""

    __test__ = False
    scipy_onebyone = True
    targets = ('batch_shape', 'cdf', 'entropy', 'event_shape', 'icdf', 'log_cdf', 'log_prob',
               'log_survival', 'mean', 'prob', 'sample', 'stddev', 'support', 'survival',
               'variance')

    def setUp_configure(self):
        from scipy import stats

        self.dist = distributions.Normal
        self.scipy_dist = stats.norm
        self.test_targets = set(self.targets)
        loc = np.asarray(np.random.uniform(-1, 1, self.shape).astype(np.float32))
        scale = np.asarray(np.exp(np.random.uniform(-1, 1, self.shape)).astype(np.float32))
        self.params = {'loc': loc, 'scale': scale}
        self.scipy_params = {'loc': loc, 'scale': scale}

    def sample_for_test(self):
        return np.asarray(np.random.normal(size=self.sample_shape + self.shape)
                          .astype(np.float32))


@testing.parameterize(*testing.product({
    'shape': [(2, 3), ()],
    'is_variable': [True, False],
    'sample_shape': [(3, 2), ()],
}))
@testing.fix_random()
class TestNormalAgainstScipy(_NormalBase):
    pass


@testing.parameterize({'shape': (2, 3), 'is_variable': False, 'sample_shape': (3, 2)})
@testing.fix_random()
class TestNormalAgainstScipyAtOnce(_NormalBase):
    scipy_onebyone = False


class _ShiftedMean(distributions.Normal):
    @property
    def mean(self):
        return super().mean + 1


def _run(cls, method):
    result = unittest.TestResult()
    cls(method).run(result)
    return result


def _case(**attributes):
    return type('Case', (_NormalBase,), {'shape': (2,), 'is_variable': False,
                                         'sample_shape': (), **attributes})


def test_a_wrong_property_fails_only_its_target():
    def configure(self):
        _NormalBase.setUp_configure(self)
        self.dist = _ShiftedMean

    case = _case(setUp_configure=configure)
    result = _run(case, 'test_mean_cpu')
    assert len(result.failures) == 1
    assert _run(case, 'test_variance_cpu').wasSuccessful()


def test_targets_not_listed_are_skipped_and_unknown_ones_rejected():
    case = _case(targets=('mean',))
    result = _run(case, 'test_cdf_cpu')
    assert len(result.skipped) == 1 and "'cdf' is not in test_targets" in result.skipped[0][1]
    result = _run(_case(targets=('mean', 'median')), 'test_mean_cpu')
    assert len(result.errors) == 1 and 'median' in result.errors[0][1]


def test_variable_parameters_and_options():
    case = _case(is_variable=True)('test_mean_cpu')
    case.setUp()
    assert all(isinstance(v, catena.Variable) for v in case.params.values())
    case.options = {'scale': case.params.pop('scale')}
    assert case.cpu_dist.batch_shape == (2,)


def test_every_target_has_a_cpu_and_a_gpu_test():
    for target in distribution.TARGETS:
        assert callable(getattr(testing.distribution_unittest, f'test_{target}_cpu'))
        gpu = getattr(testing.distribution_unittest, f'test_{target}_gpu')
        assert [mark.name for mark in gpu.pytestmark] == ['gpu']


def test_onebyone_params_iterate_over_the_batch():
    case = _case()('test_mean_cpu')
    case.scipy_params = {'loc': np.arange(6).reshape(2, 3), 'scale': 2.0}
    case.shape = (2,)
    got = list(case.scipy_onebyone_params_iter())
    assert [p['scale'] for p in got] == [2.0, 2.0]
    np.testing.assert_array_equal(got[1]['loc'], [3, 4, 5])


# ------------------------------------------------------------- unary_math_function_unittest

class _Twice(catena.FunctionNode):
    def forward(self, inputs):
        return np.asarray(2 * inputs[0], dtype=inputs[0].dtype),

    def backward(self, indexes, grad_outputs):
        return 2 * grad_outputs[0],


def twice(x):
    return _Twice().apply((x,))[0]


@testing.unary_math_function_unittest(twice, func_expected=lambda x, dtype: (2 * x).astype(dtype))
class TestTwice(unittest.TestCase):
    pass


@testing.unary_math_function_unittest(F.exp)
class TestExp(unittest.TestCase):
    pass


def _classes(prefix):
    return [value for name, value in globals().items()
            if name.startswith(prefix + '_param_') and isinstance(value, type)]


def test_unary_math_makes_six_classes_with_three_cpu_tests():
    classes = _classes('TestTwice')
    assert len(classes) == 6
    assert {(c.shape, np.dtype(c.dtype).name) for c in classes} == {
        (s, d) for s in [(3, 2), ()] for d in ['float16', 'float32', 'float64']}
    names = unittest.defaultTestLoader.getTestCaseNames(classes[0])
    assert [n for n in names if n.endswith('_cpu')] == [
        'test_backward_cpu', 'test_double_backward_cpu', 'test_forward_cpu']
    assert 'test_label' not in names
    assert TestTwice.__test__ is False


def test_unary_math_needs_a_numpy_function_or_func_expected():
    def no_such_numpy_function(x):
        return x

    with pytest.raises(ValueError, match='no_such_numpy_function'):
        testing.unary_math_function_unittest(no_such_numpy_function)
    with pytest.raises(TypeError):
        testing.unary_math_function_unittest(twice, func_expected=np.exp)(object)


def test_unary_math_catches_a_wrong_function():
    @testing.unary_math_function_unittest(
        twice, func_expected=lambda x, dtype: (3 * x).astype(dtype))
    class Wrong(unittest.TestCase):
        pass

    wrong = [value for name, value in locals().items() if name.startswith('Wrong_param_')]
    assert wrong == []  # the generated classes live in the module, not the function
    generated = [value for name, value in globals().items()
                 if name.startswith('Wrong_param_') and isinstance(value, type)]
    assert len(generated) == 6
    case = next(c for c in generated if c.shape == (3, 2) and c.dtype == np.float64)
    assert not _run(case, 'test_forward_cpu').wasSuccessful()
    assert _run(case, 'test_backward_cpu').wasSuccessful()
    for cls in generated:
        globals().pop(cls.__name__)


def test_unary_math_options_and_is_linear_deprecation():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        decorator = testing.unary_math_function_unittest(
            twice, func_expected=lambda x, dtype: 2 * x, is_linear=True,
            forward_options={'atol': 0.5}, backward_options={'eps': 0.25})
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)

    class Loose(unittest.TestCase):
        pass

    decorator(Loose)
    generated = [value for name, value in globals().items()
                 if name.startswith('Loose_param_') and isinstance(value, type)]
    case = next(c for c in generated if c.dtype == np.float32)('test_forward_cpu')
    case.setUp()
    assert case.forward_options == {'atol': 0.5, 'rtol': 1e-4}
    assert case.backward_options['eps'] == 0.25
    for cls in generated:
        globals().pop(cls.__name__)
