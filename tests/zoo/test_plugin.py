"""catena-zoo as a plugin: registration, its own hook specifications, runtime info."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap

import pytest

from catena.plugins import _manager, get_plugin_manager, hookimpl

catena_zoo = pytest.importorskip('catena_zoo')
hookspecs = pytest.importorskip('catena_zoo.hookspecs')

ZOO_HOOKS = ['catena_zoo_models', 'catena_caffe_layers']


def test_plugin_is_loaded_from_its_entry_point() -> None:
    records = {r.name: r for r in _manager.records()}
    assert records['zoo'].source == 'catena-zoo'
    assert records['zoo'].version == catena_zoo.__version__ == '0.1.0'
    assert records['zoo'].error is None


def test_plugin_import_is_light() -> None:
    code = textwrap.dedent('''
        import sys
        import catena_zoo.plugin
        heavy = {'requests', 'google.protobuf'} & set(sys.modules)
        assert not heavy, heavy
    ''')
    result = subprocess.run([sys.executable, '-c', code], env=dict(os.environ),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize('name', ZOO_HOOKS)
def test_hookspecs_are_added_to_the_plugin_manager(name: str) -> None:
    caller = getattr(get_plugin_manager().hook, name)
    assert caller.spec is not None
    assert caller.spec.namespace is hookspecs
    assert not caller.spec.opts['firstresult']


@pytest.mark.parametrize('name', ZOO_HOOKS)
def test_hookspecs_are_documented(name: str) -> None:
    doc = inspect.getdoc(getattr(hookspecs, name))
    assert doc and ':return:' in doc


def test_another_plugin_can_implement_the_zoo_hooks() -> None:
    class FakeModel:
        pass

    def convert(function: object, layer: object) -> None:
        pass

    class Plugin:
        @hookimpl
        def catena_zoo_models(self) -> list[type]:
            return [FakeModel]

        @hookimpl
        def catena_caffe_layers(self) -> dict[str, object]:
            return {'FakeLayer': convert}

    pm = get_plugin_manager()
    plugin = Plugin()
    pm.register(plugin, name='test-zoo-extension')
    try:
        assert [FakeModel] in pm.hook.catena_zoo_models()
        assert {'FakeLayer': convert} in pm.hook.catena_caffe_layers()
    finally:
        pm.unregister(plugin)


def test_runtime_info() -> None:
    lines = dict(_manager.call_each('catena_runtime_info'))['zoo']
    assert lines == ['catena-zoo 0.1.0: VGG16/19, ResNet-50/101/152 and GoogLeNet '
                     "(pretrained_model='auto' fetches and converts the published Caffe "
                     'weights); Caffe import (CaffeFunction) and export (catena.exporters.caffe)']


def test_caffe_exporter_is_reachable_from_the_core_name() -> None:
    import catena.exporters
    import catena.exporters.caffe
    from catena_zoo.exporters import caffe

    assert catena.exporters.caffe.export is caffe.export
    assert catena.exporters.plugin_exporter('caffe') is caffe
