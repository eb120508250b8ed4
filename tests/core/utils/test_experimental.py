"""catena.utils.experimental and catena.disable_experimental_feature_warning."""

import os
import subprocess
import sys
import warnings

import pytest

import catena
from catena import utils


@pytest.fixture
def warnings_enabled(monkeypatch):
    monkeypatch.setattr(catena, 'disable_experimental_feature_warning', False)


def test_warns_future_warning_with_the_api_name(warnings_enabled):
    with pytest.warns(FutureWarning, match='^MyLink.forward is experimental. '):
        utils.experimental('MyLink.forward')


def test_disabled_by_the_module_attribute(monkeypatch):
    monkeypatch.setattr(catena, 'disable_experimental_feature_warning', True)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        utils.experimental('f')


@pytest.mark.parametrize('value, expected', [('1', True), ('0', False), ('true', True)])
def test_initial_value_comes_from_the_environment(value, expected):
    env = dict(os.environ, CATENA_DISABLE_EXPERIMENTAL_FEATURE_WARNING=value)
    env.pop('CHAINER_DISABLE_EXPERIMENTAL_FEATURE_WARNING', None)
    code = 'import catena; print(catena.disable_experimental_feature_warning)'
    result = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(expected)


def test_invalid_environment_value_is_reported(monkeypatch):
    from catena.utils.experimental import disabled_by_environment

    monkeypatch.setenv('CATENA_DISABLE_EXPERIMENTAL_FEATURE_WARNING', 'maybe')
    with pytest.raises(ValueError, match='DISABLE_EXPERIMENTAL_FEATURE_WARNING'):
        disabled_by_environment()
