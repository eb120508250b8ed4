"""catena.DebugMode: Chainer's deprecated context manager for config.debug."""

import pytest

import catena


def test_sets_and_restores_debug():
    with pytest.warns(DeprecationWarning, match="using_config\\('debug'"):
        mode = catena.DebugMode(True)
    assert not catena.is_debug()
    with mode:
        assert catena.is_debug()
    assert not catena.is_debug()


def test_restores_after_an_exception():
    with catena.using_config('debug', True):
        with pytest.raises(KeyError), pytest.warns(DeprecationWarning), catena.DebugMode(False):
            assert not catena.is_debug()
            raise KeyError
        assert catena.is_debug()
