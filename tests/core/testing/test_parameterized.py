"""parameterize and its products: stacking, comma-joined keys, pairwise products, pytest style."""

import itertools
import re
import subprocess
import sys
import textwrap
import unittest

import pytest

from catena import testing
from catena.testing import helper, parameterized


@testing.parameterize({'a': 1}, {'a': 2})
@testing.parameterize({'b': 'x'}, {'b': 'y'})
class TestStacked(unittest.TestCase):

    def test_both_attributes(self):
        assert (self.a, self.b) in {(1, 'x'), (1, 'y'), (2, 'x'), (2, 'y')}


@testing.parameterize({'scale': 2}, {'scale': 3})
@testing.inject_backend_tests(None, [{'device': '@numpy'}])
class TestWithBackends(unittest.TestCase):

    def test_device(self, backend_config):
        assert backend_config.device_spec == '@numpy' and self.scale in (2, 3)


def _generated(prefix):
    return {name: value for name, value in globals().items()
            if name.startswith(prefix + '_param_') and isinstance(value, type)}


def test_parameterize_returns_the_template_marked_uncollected():
    assert isinstance(TestStacked, type) and TestStacked.__test__ is False
    for cls in _generated('TestStacked').values():
        assert cls.__test__ is True and issubclass(cls, TestStacked)


def test_stacked_parameterize_makes_the_product_and_drops_the_inner_classes():
    classes = _generated('TestStacked')
    combinations = {(cls.a, cls.b) for cls in classes.values() if hasattr(cls, 'a')}
    assert combinations == {(1, 'x'), (1, 'y'), (2, 'x'), (2, 'y')}
    # Only the four leaves remain in the module; the two inner classes became bases.
    assert len(classes) == 4
    assert all(cls._catena_parameters.keys() == {'a', 'b'} for cls in classes.values())


def test_parameterize_over_inject_backend_tests_expands_every_class():
    classes = _generated('TestWithBackends')
    assert len(classes) == 2
    for cls in classes.values():
        names = unittest.defaultTestLoader.getTestCaseNames(cls)
        assert names == ['test_device__numpy']
        result = unittest.TestResult()
        cls('test_device__numpy').run(result)
        assert result.wasSuccessful(), result.failures + result.errors


def test_product_with_comma_joined_keys_keeps_values_together():
    got = testing.product({'x_shape,y_shape': [((2,), (3,)), ((), ())], 'dtype': ['f', 'd']})
    assert got == [
        {'x_shape': (2,), 'y_shape': (3,), 'dtype': 'f'},
        {'x_shape': (2,), 'y_shape': (3,), 'dtype': 'd'},
        {'x_shape': (), 'y_shape': (), 'dtype': 'f'},
        {'x_shape': (), 'y_shape': (), 'dtype': 'd'},
    ]
    with pytest.raises(ValueError, match="names 2 parameters but the value"):
        testing.product({'a,b': [(1, 2, 3)]})


def test_product_edge_cases():
    assert testing.product({}) == [{}]
    assert testing.product({'a': [1, 2], 'b': []}) == []
    assert testing.product_dict() == [{}]
    assert testing.product_dict([{'a': 1}], []) == []


def test_product_dict_orig_is_the_full_product():
    assert parameterized._product_dict_orig is testing.product_dict


def _covers_every_pair(lists, rows):
    for i, j in itertools.combinations(range(len(lists)), 2):
        for a, b in itertools.product(lists[i], lists[j]):
            if not any(all(row.get(k) == v for k, v in {**a, **b}.items()) for row in rows):
                return False
    return True


def test_pairwise_product_dict_covers_every_pair_with_fewer_rows():
    lists = [[{'a': i} for i in range(3)], [{'b': i} for i in range(3)],
             [{'c': i} for i in range(3)], [{'d': i} for i in range(2)]]
    rows = parameterized._pairwise_product_dict(*lists)
    assert _covers_every_pair(lists, rows)
    assert len(rows) < len(parameterized._product_dict_orig(*lists))
    assert rows == parameterized._pairwise_product_dict(*lists)  # deterministic
    assert all(row.keys() == {'a', 'b', 'c', 'd'} for row in rows)


def test_pairwise_product_dict_of_two_lists_is_the_full_product():
    lists = [[{'a': 1}, {'a': 2}], [{'b': 3}, {'b': 4}]]
    assert parameterized._pairwise_product_dict(*lists) == testing.product_dict(*lists)
    assert parameterized._pairwise_product_dict([{'a': 1}], [], [{'c': 1}]) == []


def test_product_looks_product_dict_up_at_call_time(monkeypatch):
    # Chainer's conftest swaps in the pairwise product through the module attribute.
    monkeypatch.setattr(parameterized, 'product_dict', parameterized._pairwise_product_dict)
    got = testing.product({'a': [0, 1, 2], 'b': [0, 1, 2], 'c': [0, 1, 2]})
    assert len(got) < 27
    assert _covers_every_pair([[{'a': i} for i in range(3)], [{'b': i} for i in range(3)],
                               [{'c': i} for i in range(3)]], got)


def test_from_pytest_parameterize():
    assert testing.from_pytest_parameterize('a', [1, 2]) == [{'a': 1}, {'a': 2}]
    assert testing.from_pytest_parameterize('a, b', [(1, 2), (3, 4)]) == [
        {'a': 1, 'b': 2}, {'a': 3, 'b': 4}]
    assert testing.from_pytest_parameterize(['a', 'b'], [(1, 2)]) == [{'a': 1, 'b': 2}]


@testing.parameterize_pytest('value,double', [(1, 2), (3, 6)])
class TestPytestStyle(unittest.TestCase):

    def test_double(self):
        assert 2 * self.value == self.double


def test_parameterize_pytest_makes_one_class_per_value():
    classes = _generated('TestPytestStyle')
    assert sorted((cls.value, cls.double) for cls in classes.values()) == [(1, 2), (3, 6)]


def test_run_module_does_nothing_on_import():
    assert helper.run_module('some.module', __file__) is None


def test_run_module_runs_the_file_as_a_script(tmp_path):
    script = tmp_path / 'test_script.py'
    script.write_text(textwrap.dedent('''
        from catena import testing

        def test_passes():
            assert True

        def test_fails():
            assert False

        testing.run_module(__name__, __file__)
    '''))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 1
    assert '1 failed, 1 passed' in done.stdout


_PAIRWISE_TEST = '''
from catena import testing


@testing.parameterize(*testing.product({
    'a': [0, 1, 2], 'b': [0, 1, 2], 'c': [0, 1, 2],
}))
class TestGrid:
    def test_values(self):
        assert self.a in (0, 1, 2)
'''


@pytest.mark.parametrize('mode, counts', [('never', {27}), ('always', set(range(9, 27))),
                                          (None, {27})])
def test_pairwise_environment_variable_shrinks_product_grids(tmp_path, mode, counts):
    """3 x 3 x 3 values: 27 combinations, or at least the 9 rows that cover every pair."""
    import os

    (tmp_path / 'test_grid.py').write_text(_PAIRWISE_TEST)
    env = dict(os.environ)
    env.pop('CATENA_TEST_PAIRWISE_PARAMETERIZATION', None)
    if mode is not None:
        env['CATENA_TEST_PAIRWISE_PARAMETERIZATION'] = mode
    process = subprocess.run(
        [sys.executable, '-m', 'pytest', '--collect-only', '-q', '-p', 'no:cacheprovider',
         '--rootdir', str(tmp_path), str(tmp_path / 'test_grid.py')],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    found = re.search(r'(\d+) tests? collected', process.stdout)
    assert found is not None, process.stdout + process.stderr
    assert int(found.group(1)) in counts


def test_pairwise_environment_variable_refuses_other_values(tmp_path):
    import os

    (tmp_path / 'test_grid.py').write_text(_PAIRWISE_TEST)
    env = dict(os.environ, CATENA_TEST_PAIRWISE_PARAMETERIZATION='sometimes')
    process = subprocess.run(
        [sys.executable, '-m', 'pytest', '--collect-only', '-q', '-p', 'no:cacheprovider',
         '--rootdir', str(tmp_path), str(tmp_path / 'test_grid.py')],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert process.returncode != 0
    assert "CATENA_TEST_PAIRWISE_PARAMETERIZATION must be 'never' or 'always'" in (
        process.stdout + process.stderr)
