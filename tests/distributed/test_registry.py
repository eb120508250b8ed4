"""Communicators from plugins, through the catena_register_communicators hook."""

import pytest

import catena.distributed as dist
from catena import hookimpl
from catena.plugins import _manager
from catena.testing import plugins
from catena.testing.plugins import FakeEntryPoint


def make_toy(**kwargs):
    return ('toy communicator', kwargs)


class ToyPlugin:
    @hookimpl
    def catena_register_communicators(self):
        return {'toy': make_toy, 'naive': make_toy}


class BrokenPlugin:
    @hookimpl
    def catena_register_communicators(self):
        return ['not', 'a', 'dict']


@pytest.fixture
def load_plugins(monkeypatch):
    monkeypatch.delenv('CATENA_DISABLE_PLUGIN_AUTOLOAD', raising=False)
    monkeypatch.delenv('CATENA_PLUGINS', raising=False)

    def load(**named_plugins):
        plugins.install_entry_points(monkeypatch, *(
            FakeEntryPoint(name, plugin, dist='catena-test-plugin', version='1.0')
            for name, plugin in named_plugins.items()))
        _manager.load()

    yield load
    _manager.reset_for_testing()


def test_a_plugin_communicator_gets_the_arguments(load_plugins):
    load_plugins(toy=ToyPlugin())
    with pytest.warns(RuntimeWarning, match="registers the communicator 'naive'"):
        made = dist.create_communicator('toy', allreduce_grad_dtype='float16', flavour=1)
    assert made == ('toy communicator', {'mpi_comm': None, 'allreduce_grad_dtype': 'float16',
                                         'batched_copy': True, 'flavour': 1})
    with pytest.warns(RuntimeWarning):
        assert 'toy' in dist.communicator_names()


def test_a_plugin_returning_something_else_is_ignored_with_a_warning(load_plugins):
    load_plugins(broken=BrokenPlugin())
    with pytest.warns(RuntimeWarning, match='expected a dict'):
        names = dist.communicator_names()
    assert names == ['dummy', 'flat', 'naive']
