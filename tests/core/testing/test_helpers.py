"""The small helpers of catena.testing: parameterize, randomness, repetition, requirements."""

# Chainer-style tests draw from NumPy's global generator, which fix_random seeds.
# ruff: noqa: NPY002

import os
import random
import subprocess
import sys
import textwrap
import unittest

import numpy as np
import pytest

import catena
from catena import testing
from catena.testing import attr, backend as testing_backend, condition, helper, pytest_plugin

# ----------------------------------------------------------------- product / product_dict

def test_product_of_a_dict_varies_the_last_key_fastest():
    assert testing.product({'a': [1, 2], 'b': ['x', 'y']}) == [
        {'a': 1, 'b': 'x'}, {'a': 1, 'b': 'y'}, {'a': 2, 'b': 'x'}, {'a': 2, 'b': 'y'}]
    assert testing.product({'a': []}) == []


def test_product_dict_merges_one_dict_from_each_list():
    got = testing.product_dict([{'a': 1}, {'a': 2, 'c': 0}], [{'b': 3}, {'b': 4}])
    assert got == [{'a': 1, 'b': 3}, {'a': 1, 'b': 4}, {'a': 2, 'c': 0, 'b': 3},
                   {'a': 2, 'c': 0, 'b': 4}]
    assert testing.product([[{'a': 1}], [{'b': 2}, {'b': 3}]]) == [{'a': 1, 'b': 2},
                                                                   {'a': 1, 'b': 3}]


# ----------------------------------------------------------------------------- parameterize

def _double(x):
    return 2 * x


@testing.parameterize(
    {'value': 1, 'func': _double},
    {'value': 5, 'func': _double},
)
class TestParameterizedUnittest(unittest.TestCase):

    def test_attribute_is_set(self):
        assert self.value in (1, 5)
        # A plain function stays a plain function (not a bound method).
        assert self.func(self.value) == 2 * self.value


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64], 'shape': [(2,)]}))
class TestParameterizedPlain:

    def test_dtype(self):
        assert np.zeros(self.shape, self.dtype).dtype == self.dtype


def test_parameterize_adds_named_classes_and_keeps_the_template_uncollected():
    assert TestParameterizedUnittest.__test__ is False
    assert TestParameterizedPlain.__test__ is False
    names = sorted(name for name, value in globals().items()
                   if name.startswith('TestParameterized') and '_param_' in name)
    assert names == ['TestParameterizedPlain_param_0_dtype_float32_shape_2',
                     'TestParameterizedPlain_param_1_dtype_float64_shape_2',
                     'TestParameterizedUnittest_param_0_value_1_func_double',
                     'TestParameterizedUnittest_param_1_value_5_func_double']
    cls = globals()['TestParameterizedUnittest_param_1_value_5_func_double']
    assert cls.value == 5 and cls.__module__ == __name__
    assert cls._catena_parameters == {'value': 5, 'func': _double}


def test_parameterize_rejects_non_dicts_and_non_classes():
    with pytest.raises(TypeError, match='takes dicts'):
        testing.parameterize([('a', 1)])
    with pytest.raises(TypeError, match='decorates classes'):
        testing.parameterize({'a': 1})(lambda: None)


# ------------------------------------------------------------------ fix_random / generate_seed

def test_fix_random_on_a_function_seeds_and_restores():
    np.random.seed(123)
    expected_after = np.random.RandomState(123).uniform()

    @testing.fix_random(seed=7)
    def draw():
        return np.random.uniform(), random.random(), testing.generate_seed()

    first = draw()
    assert first == draw()
    assert first[0] == np.random.RandomState(7).uniform()
    assert np.random.uniform() == expected_after  # the outer state was restored
    assert testing.fix_random(seed=8)(draw.__wrapped__)() != first


def test_fix_random_on_classes():
    seen = []

    @testing.fix_random(seed=3)
    class Case(unittest.TestCase):
        def setUp(self):
            seen.append(('setUp', np.random.uniform()))

        def test_a(self):
            seen.append(('test', np.random.uniform()))

    @testing.fix_random(seed=3)
    class Plain:
        def test_a(self):
            seen.append(('plain', np.random.uniform()))

    result = unittest.TestResult()
    Case('test_a').run(result)
    assert result.wasSuccessful()
    instance = Plain()
    instance.setup_method(Plain.test_a)
    instance.test_a()
    instance.teardown_method(Plain.test_a)
    state = np.random.RandomState(3)
    assert seen == [('setUp', state.uniform()), ('test', state.uniform()),
                    ('plain', np.random.RandomState(3).uniform())]


def test_generate_seed_is_an_unsigned_32_bit_int():
    seed = testing.generate_seed()
    assert isinstance(seed, int) and 0 <= seed < 2 ** 32


def test_fix_random_can_be_made_nondeterministic(monkeypatch):
    monkeypatch.setenv('CATENA_TEST_RANDOM_NONDETERMINISTIC', '1')
    draw = testing.fix_random()(lambda: np.random.uniform())
    assert len({draw() for _ in range(3)}) == 3


# ------------------------------------------------------------------------------ condition

class _Counter:
    def __init__(self, outcomes):
        self.outcomes = list(outcomes)
        self.calls = 0

    def __call__(self):
        self.calls += 1
        assert self.outcomes.pop(0), f'trial {self.calls} failed'


def test_repeat_needs_every_trial():
    counter = _Counter([True] * 3)
    condition.repeat(3)(counter)()
    assert counter.calls == 3
    counter = _Counter([True, False, True])
    with pytest.raises(AssertionError, match='passed 1 of 2 trials'):
        condition.repeat(3)(counter)()
    assert counter.calls == 2  # stops once success is impossible


def test_retry_needs_one_success():
    counter = _Counter([False, False, True, True])
    condition.retry(4)(counter)()
    assert counter.calls == 3
    with pytest.raises(AssertionError, match='passed 0 of 2 trials(.|\n)*trial 1 failed'):
        condition.retry(2)(_Counter([False, False]))()


def test_repeat_with_success_at_least():
    counter = _Counter([False, True, False, True, True])
    condition.repeat_with_success_at_least(5, 3)(counter)()
    assert counter.calls == 5
    with pytest.raises(AssertionError, match='needs 3 successes in at most 4 trials'):
        condition.repeat_with_success_at_least(4, 3)(_Counter([False, True, False, True]))()
    with pytest.raises(ValueError):
        condition.repeat_with_success_at_least(2, 3)


def test_condition_refreshes_unittest_fixtures_and_propagates_skips():
    events = []

    class Case(unittest.TestCase):
        def setUp(self):
            events.append('setUp')

        def tearDown(self):
            events.append('tearDown')

        @condition.repeat(3)
        def test_a(self):
            events.append('test')

        @condition.retry(3)
        def test_skip(self):
            raise unittest.SkipTest('not here')

    result = unittest.TestResult()
    Case('test_a').run(result)
    assert result.wasSuccessful()
    assert events == ['setUp', 'test', 'tearDown', 'setUp', 'test', 'tearDown', 'setUp',
                      'test', 'tearDown']
    result = unittest.TestResult()
    Case('test_skip').run(result)
    assert len(result.skipped) == 1


# -------------------------------------------------------------------------- requirements

def test_with_requires_and_without_requires():
    assert helper.is_satisfied('numpy>=1.0')
    assert not helper.is_satisfied('numpy<1.0')
    assert not helper.is_satisfied('surely-not-an-installed-distribution-xyz')

    @testing.with_requires('numpy>=1.0')
    def present():
        return 'ran'

    @testing.with_requires('numpy<1.0')
    def too_new():
        return 'ran'

    @testing.without_requires('numpy')
    def needs_absence():
        return 'ran'

    assert present() == 'ran'
    with pytest.raises(unittest.SkipTest, match='numpy<1.0'):
        too_new()
    with pytest.raises(unittest.SkipTest, match='absence of: numpy'):
        needs_absence()
    assert too_new.pytestmark[0].args == (True,)


def test_with_requires_skips_a_unittest_class():
    @testing.with_requires('surely-not-an-installed-distribution-xyz')
    class Case(unittest.TestCase):
        def test_a(self):
            pass

    result = unittest.TestResult()
    Case('test_a').run(result)
    assert len(result.skipped) == 1


@pytest.mark.parametrize('version, operator, wanted, expected', [
    ('1.26.4', '>=', '1.26', True),
    ('1.26.4', '<', '1.26', False),
    ('2.0', '==', '2.0.0', True),
    ('2.0rc1', '<', '2.0', True),
    ('2.0.post1', '>', '2.0', True),
    ('1.10', '>', '1.9', True),
    ('3.1.2', '~=', '3.1', True),
    ('4.0', '~=', '3.1', False),
    ('1.4.7', '==', '1.4.*', True),
    ('1.5.0', '!=', '1.4.*', True),
])
def test_own_version_comparison_without_packaging(version, operator, wanted, expected):
    assert helper._simple_satisfies(version, operator, wanted) is expected


def test_own_requirement_check_without_packaging():
    assert helper._simple_check('numpy >= 1.0, < 100')
    assert not helper._simple_check('numpy<1.0')
    assert not helper._simple_check('surely-not-an-installed-distribution-xyz')


def test_patch_uses_autospec():
    with testing.patch('os.path.join') as join:
        os.path.join('a', 'b')
        with pytest.raises(TypeError):
            os.path.join(wrong_keyword=1)
    join.assert_called_once_with('a', 'b')
    with testing.patch('os.path.join', autospec=False, return_value=None) as join:
        os.path.join(wrong_keyword=1)  # no spec: anything goes


# ---------------------------------------------------------------------- assert_allclose

def test_assert_allclose_accepts_any_device_and_variables():
    x = np.array([1.0, 2.0, 3.0])
    on_fake = catena.backend.get_device('@fake').send_array(x + 1e-7)
    testing.assert_allclose(catena.Variable(on_fake), x)
    testing.assert_allclose(on_fake, catena.Variable(x))
    testing.assert_allclose(np.float32(2.0), 2.0)


def test_assert_allclose_explains_the_worst_element():
    x = np.zeros((2, 3))
    y = np.zeros((2, 3))
    y[1, 2] = 1.0
    y[0, 0] = 1e-3
    with pytest.raises(AssertionError) as info:
        testing.assert_allclose(x, y, atol=1e-4, rtol=0)
    message = str(info.value)
    assert '2 of 6 elements differ' in message
    assert 'worst element at index (1, 2)' in message
    assert 'max absolute error: 1.0' in message
    assert 'shape (2, 3)' in message


def test_assert_allclose_shape_mismatch_and_nan():
    with pytest.raises(AssertionError, match=r'shapes differ: x \(2,\) != y \(3,\)'):
        testing.assert_allclose(np.zeros(2), np.zeros(3))
    testing.assert_allclose(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    with pytest.raises(AssertionError):
        testing.assert_allclose(np.array([np.nan]), np.array([1.0]))


# -------------------------------------------------------------------------- tolerances

def test_tolerance_table_orders_the_dtypes():
    for kind in ('forward', 'backward', 'double_backward'):
        f16, f32, f64 = (testing.tolerances(d, kind) for d in
                         (np.float16, np.float32, np.float64))
        assert f16['atol'] > f32['atol'] > f64['atol']
        assert f16['rtol'] > f32['rtol'] > f64['rtol']
    assert testing.tolerances(np.int32) == {'atol': 0, 'rtol': 0}
    assert testing.tolerances('bfloat16')['atol'] > testing.tolerances(np.float16)['atol']
    with pytest.raises(ValueError, match='kind'):
        testing.tolerances(np.float32, 'sideways')


# ------------------------------------------------------------------------- BackendConfig

def test_backend_config_from_catena_and_chainer_params():
    config = testing.BackendConfig({'device': '@fake', 'config': {'train': False}})
    assert config.name == '@fake[train=False]' and config.test_id == 'fake__train_False'
    array = config.get_array(np.arange(3.0))
    assert catena.backend.get_device_from_array(array) == config.device
    assert config.xp is config.device.xp
    assert catena.config.train is True
    with config:
        assert catena.config.train is False
    assert catena.config.train is True

    gpu = testing.BackendConfig({'use_cuda': True, 'cuda_device': 1, 'use_cudnn': 'always'})
    assert gpu.device_spec == '@cupy:1' and gpu.marks == ('gpu', 'cudnn')
    assert gpu.use_cuda and gpu.cuda_device == 1 and gpu.use_cudnn == 'always'
    cpu = testing.BackendConfig({'use_ideep': 'always'})
    assert cpu.device_spec == '@numpy' and cpu.marks == ('ideep',) and not cpu.use_cuda
    assert cpu.use_cudnn == 'never'
    assert 'ChainerX' in testing.BackendConfig({'use_chainerx': True}).unavailable_reason
    with pytest.raises(ValueError, match='unknown backend parameter'):
        testing.BackendConfig({'use_gpu': True})


def test_inject_backend_tests_on_a_plain_class():
    @testing.inject_backend_tests(['test_send'], ['@numpy', {'device': '@fake'}])
    class Plain:
        def test_send(self, backend_config):
            return catena.backend.get_device_from_array(backend_config.get_array(np.zeros(2)))

    assert Plain.test_send is None
    assert str(Plain().test_send__numpy()) == '@numpy'
    assert str(Plain().test_send__fake()) == '@fake'
    with pytest.raises(ValueError, match='not a test method taking a backend_config'):
        testing.inject_backend_tests(['test_missing'], ['@numpy'])(Plain)


def test_backend_marks_reach_the_generated_methods():
    @testing.inject_backend_tests(None, [{'device': '@nosuchdevice', 'marks': ['gpu']}])
    class Case(unittest.TestCase):
        @attr.slow
        def test_a(self, backend_config):
            pass

    names = {mark.name for mark in Case.test_a__nosuchdevice.pytestmark}
    assert names == {'gpu', 'slow'}
    result = unittest.TestResult()
    Case('test_a__nosuchdevice').run(result)
    assert len(result.skipped) == 1


def test_backend_config_argument_of_plain_functions(backend_config):
    # Parametrized by the pytest plugin: one test id per device ([@numpy], [@fake], ...).
    array = backend_config.get_array(np.ones(2))
    assert catena.backend.get_device_from_array(array) == backend_config.device or \
        backend_config.device_spec == '@intel64'


def test_attr_markers():
    assert attr.gpu.name == 'gpu' and attr.slow.name == 'slow'
    assert attr.cudnn.name == 'cudnn' and attr.ideep.name == 'ideep'
    assert attr.multi_gpu(2).args == (2,)
    with pytest.raises(ValueError):
        attr.multi_gpu(0)


def test_save_and_load_helpers():
    saved = []
    testing.save_and_load('src', 'dst', 'file.npz', lambda f, o: saved.append((f, o)),
                          lambda f, o: saved.append((f, o)))
    assert saved == [('file.npz', 'src'), ('file.npz', 'dst')]
    try:
        import catena.serializers  # noqa: F401
    except ImportError:
        with pytest.raises(NotImplementedError, match='serializer issue'):
            testing.save_and_load_npz(object(), object())


def test_public_names():
    for name in testing.__all__:
        assert getattr(testing, name) is not None
    assert 'FunctionTestCase' in testing.__all__ and 'assert_allclose' in testing.__all__


# ---------------------------------------------------------------------- the pytest plugin

def test_device_selection_matches_prefixes():
    assert pytest_plugin.device_selected('@cupy:1', ['@cupy'])
    assert pytest_plugin.device_selected('@cupy', ['@cupy:0'])
    assert not pytest_plugin.device_selected('@fake', ['@numpy'])
    assert pytest_plugin.device_selected('@fake', None)


_PLUGIN_TEST = '''
    import numpy as np
    import catena.functions as F
    from catena import testing
    from catena.testing import attr


    class TestTanh(testing.FunctionTestCase):
        def generate_inputs(self):
            return np.random.uniform(-1, 1, (2,)),

        def forward(self, inputs, device):
            return F.tanh(inputs[0]),

        def forward_expected(self, inputs):
            return np.tanh(inputs[0]),


    def test_plain(backend_config):
        pass


    @attr.multi_gpu(2)
    def test_two_gpus():
        pass
'''


def _run_pytest(tmp_path, *args, env=None):
    path = tmp_path / 'test_generated.py'
    path.write_text(textwrap.dedent(_PLUGIN_TEST))
    environment = dict(os.environ, **(env or {}))
    environment.pop('CATENA_TEST_DEVICES', None)
    process = subprocess.run(
        [sys.executable, '-m', 'pytest', str(path), '-v', '-p', 'no:cacheprovider',
         '--import-mode=importlib', '-rs', '--rootdir', str(tmp_path), *args],
        capture_output=True, text=True, env=environment, cwd=tmp_path, timeout=300)
    return process.returncode, process.stdout + process.stderr


def test_plugin_device_option_ids_and_gpu_limit(tmp_path):
    code, output = _run_pytest(tmp_path, '--catena-devices=@fake',
                               env={'CATENA_TEST_GPU_LIMIT': '1'})
    assert code == 0, output
    assert 'TestTanh::test_forward__fake PASSED' in output
    assert 'TestTanh::test_double_backward__fake PASSED' in output
    assert 'test_plain[@fake] PASSED' in output
    assert 'test_forward__numpy' not in output and 'test_plain[@numpy]' not in output
    assert '@numpy: not selected (--catena-devices): no test generated' in output
    assert 'deselected' not in output
    assert 'needs 2 GPU(s); CATENA_TEST_GPU_LIMIT=1' in output
    assert 'catena test devices:' in output


def test_available_selects_the_usable_devices_and_generates_no_other(tmp_path):
    assert testing_backend.device_selected('@numpy', ['available'])
    assert not testing_backend.device_selected('@nowhere:0', ['available'])
    (tmp_path / 'test_nowhere.py').write_text(textwrap.dedent('''
        import unittest
        from catena import testing


        @testing.inject_backend_tests(None, ['@numpy', '@nowhere:0'])
        class TestSomewhere(unittest.TestCase):
            def test_it(self, backend_config):
                pass
    '''))
    code, output = _run_pytest(tmp_path, str(tmp_path / 'test_nowhere.py'),
                               '--catena-devices=available')
    assert code == 0, output
    assert 'TestSomewhere::test_it__numpy PASSED' in output
    assert 'TestTanh::test_forward__numpy PASSED' in output
    assert 'nowhere_0' not in output


def test_selection_applies_while_collecting_only():
    @testing.inject_backend_tests(None, ['@numpy', '@nowhere:0'])
    class TestBuiltAtRunTime(unittest.TestCase):
        def test_it(self, backend_config):
            pass

    assert hasattr(TestBuiltAtRunTime, 'test_it__nowhere_0')
    assert hasattr(TestBuiltAtRunTime, 'test_it__numpy')


def test_default_matrix_includes_the_builtin_devices():
    specs = [config.device_spec for config in testing_backend.get_backend_configs()]
    assert '@numpy' in specs and '@fake' in specs


def test_patch_calls_through_and_records():
    with testing.patch('os.path.join') as join:
        assert os.path.join('a', 'b') == 'a' + os.sep + 'b'
    join.assert_called_once_with('a', 'b')
    with testing.patch('os.path.join', autospec=False) as join:
        assert os.path.join('a', 'b') == 'a' + os.sep + 'b'
    assert join.call_count == 1
    with testing.patch('os.path.join', wraps=lambda *parts: '|'.join(parts)):
        assert os.path.join('a', 'b') == 'a|b'
    with testing.patch('os.path.join', return_value='fixed'):
        assert os.path.join('a', 'b') == 'fixed'
