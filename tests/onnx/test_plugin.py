"""catena-onnx as a plugin: registration, its converter hook specification, runtime info."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap

import pytest

from catena.plugins import _manager, get_plugin_manager, hookimpl

catena_onnx = pytest.importorskip('catena_onnx')
hookspecs = pytest.importorskip('catena_onnx.hookspecs')


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, '-c', textwrap.dedent(code)], env=dict(os.environ),
                          capture_output=True, text=True, timeout=120)


def test_plugin_is_loaded_from_its_entry_point() -> None:
    records = {r.name: r for r in _manager.records()}
    assert records['onnx'].source == 'catena-onnx'
    assert records['onnx'].version == catena_onnx.__version__ == '0.1.0'
    assert records['onnx'].error is None


def test_plugin_import_does_not_import_onnx() -> None:
    result = _run('''
        import sys
        import catena_onnx.plugin
        assert 'onnx' not in sys.modules
    ''')
    assert result.returncode == 0, result.stderr


def test_converter_hookspec_is_added_and_documented() -> None:
    caller = get_plugin_manager().hook.catena_onnx_converters
    assert caller.spec is not None
    assert caller.spec.namespace is hookspecs
    doc = inspect.getdoc(hookspecs.catena_onnx_converters)
    assert doc and ':return:' in doc and 'FunctionNode' in doc


def test_another_plugin_can_contribute_converters() -> None:
    class FakeNode:
        pass

    def convert(node: object, context: object) -> list[object]:
        return []

    class Plugin:
        @hookimpl
        def catena_onnx_converters(self) -> dict[type, object]:
            return {FakeNode: convert}

    pm = get_plugin_manager()
    plugin = Plugin()
    pm.register(plugin, name='test-onnx-extension')
    try:
        assert {FakeNode: convert} in pm.hook.catena_onnx_converters()
    finally:
        pm.unregister(plugin)


def test_runtime_info_reports_the_onnx_version() -> None:
    import onnx

    lines = dict(_manager.call_each('catena_runtime_info'))['onnx']
    assert len(lines) == 1
    assert lines[0].startswith(f'catena-onnx 0.1.0: onnx {onnx.__version__}, default opset ')


def test_runtime_info_without_onnx() -> None:
    result = _run('''
        import sys
        sys.modules['onnx'] = None
        from catena.plugins import _manager
        print(dict(_manager.call_each('catena_runtime_info'))['onnx'][0])
    ''')
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == 'catena-onnx 0.1.0: onnx: not installed (pip install onnx)'
