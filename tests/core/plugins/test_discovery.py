"""Entry-point discovery, failure isolation and the environment switches.

Nothing is installed: ``importlib.metadata.entry_points`` is monkeypatched
with dummy entry points (as pytest's own tests do), or, for the subprocess
tests, a temporary directory with a fake ``.dist-info`` is put on PYTHONPATH.
The real plugin state is restored after each test.
"""

import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import catena
from catena import hookimpl
from catena.backends import Device, _registry
from catena.plugins import _manager
from catena.testing import plugins
from catena.testing.plugins import FakeEntryPoint


@pytest.fixture
def entry_points(monkeypatch):
    """Returns ``install(*entry_points)``, which makes them the only ones in group catena."""
    monkeypatch.delenv('CATENA_DISABLE_PLUGIN_AUTOLOAD', raising=False)
    monkeypatch.delenv('CATENA_PLUGINS', raising=False)
    _manager.reset_for_testing()

    def install(*points):
        plugins.install_entry_points(monkeypatch, *points)
        return points

    yield install
    _manager.reset_for_testing()


def device_plugin(prefix, info=None):
    """A plugin object that registers a device type named ``prefix``."""
    device_type = type(f'Device{prefix.strip("@").title()}', (Device,), {
        'prefix': prefix, 'supported_array_types': (), 'xp': property(lambda self: np)})

    class Plugin:
        @hookimpl
        def catena_register_device_types(self):
            return [device_type]

        @hookimpl
        def catena_runtime_info(self):
            return list(info or [])

    return Plugin()


def names_loaded():
    return [record.name for record in _manager.records() if record.error is None]


# ---------------------------------------------------------------------------
# Discovery
# ---------------------------------------------------------------------------


def test_entry_points_are_loaded_lazily_and_once(entry_points):
    point, = entry_points(FakeEntryPoint('alpha', device_plugin('@alpha'),
                                          dist='catena-alpha', version='2.5'))
    assert not _manager.is_loaded()
    assert point.loads == 0
    device = catena.get_device('@alpha')  # the first device lookup loads the plugins
    assert _manager.is_loaded()
    assert str(device) == '@alpha'
    catena.get_device('@alpha')
    _manager.load()
    assert point.loads == 1
    record = [r for r in _manager.records() if r.name == 'alpha'][0]
    assert (record.source, record.version, record.error) == ('catena-alpha', '2.5', None)
    assert record.hooks == ['catena_register_device_types', 'catena_runtime_info']


def test_builtins_come_first(entry_points):
    entry_points(FakeEntryPoint('alpha', device_plugin('@alpha')))
    records = _manager.records()
    assert [r.name for r in records] == [*_manager.DEFAULT_PLUGINS, 'alpha']
    assert all(r.source == 'builtin' for r in records[:len(_manager.DEFAULT_PLUGINS)])


def test_entry_point_without_distribution(entry_points):
    entry_points(FakeEntryPoint('loose', device_plugin('@loose'), dist=None))
    record = [r for r in _manager.records() if r.name == 'loose'][0]
    assert record.source == 'loose_module' and record.error is None


def test_duplicate_entry_point_names_load_once(entry_points):
    first, second = entry_points(FakeEntryPoint('twin', device_plugin('@twin1')),
                                 FakeEntryPoint('twin', device_plugin('@twin2')))
    _manager.load()
    assert (first.loads, second.loads) == (1, 0)
    assert '@twin1' in _registry.device_types_by_prefix
    assert '@twin2' not in _registry.device_types_by_prefix


def test_concurrent_first_use_loads_once(entry_points):
    point, = entry_points(FakeEntryPoint('alpha', device_plugin('@alpha')))
    barrier = threading.Barrier(8)
    results = []

    def work():
        barrier.wait(10)
        results.append(str(catena.get_device('@alpha')))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == ['@alpha'] * 8
    assert point.loads == 1


def test_threads_wait_for_a_slow_first_load(entry_points):
    """Other threads wait until the tables are built, not just until loading began."""
    class SlowEntryPoint(FakeEntryPoint):
        def load(self):
            time.sleep(0.3)
            return super().load()

    entry_points(SlowEntryPoint('slow', device_plugin('@slow')))
    results, errors = [], []

    def work():
        try:
            results.append(str(catena.get_device('@slow')))
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(repr(error))

    threads = [threading.Thread(target=work) for _ in range(4)]
    threads[0].start()
    time.sleep(0.05)  # the first thread is now inside the slow entry point
    for thread in threads[1:]:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert results == ['@slow'] * 4


def test_reset_restores_real_state(entry_points):
    entry_points(FakeEntryPoint('alpha', device_plugin('@alpha')))
    assert '@alpha' in _registry.device_types_by_prefix
    _manager.reset_for_testing()
    assert not _manager.is_loaded()


# ---------------------------------------------------------------------------
# Failure isolation
# ---------------------------------------------------------------------------


def test_broken_plugin_is_recorded_and_isolated(entry_points):
    entry_points(
        FakeEntryPoint('good', device_plugin('@good')),
        FakeEntryPoint('broken', error=ImportError('No module named catena_broken_dep'),
                        dist='catena-broken', version='0.0.1'),
        FakeEntryPoint('other', device_plugin('@other')),
    )
    assert _manager.failures() == {
        'broken': _manager.failures()['broken']}
    reason = _manager.failures()['broken']
    assert reason.startswith('ImportError on import: No module named catena_broken_dep')
    # The other plugins and the built-ins work.
    assert names_loaded() == [*_manager.DEFAULT_PLUGINS, 'good', 'other']
    assert str(catena.get_device('@good')) == '@good'
    assert str(catena.get_device('@other')) == '@other'
    assert str(catena.get_device('@numpy')) == '@numpy'
    # Asking for an unknown device names the failure.
    with pytest.raises(ValueError) as info:
        catena.get_device('@broken')
    message = str(info.value)
    assert 'plugins that failed to load' in message
    assert 'broken (ImportError on import: No module named catena_broken_dep' in message


def test_plugin_whose_load_raises_any_exception(entry_points):
    entry_points(FakeEntryPoint('bad', error=RuntimeError('driver exploded')),
                 FakeEntryPoint('good', device_plugin('@good')))
    assert _manager.failures()['bad'].startswith('RuntimeError on import: driver exploded')
    assert str(catena.get_device('@good')) == '@good'


def test_plugin_whose_hook_raises_is_isolated(entry_points):
    class Raising:
        @hookimpl
        def catena_register_device_types(self):
            raise RuntimeError('cannot list devices')

        @hookimpl
        def catena_runtime_info(self):  # pragma: no cover - unregistered before the call
            return ['must not appear']

    entry_points(FakeEntryPoint('raising', Raising()),
                 FakeEntryPoint('good', device_plugin('@good', info=['good info'])))
    reason = _manager.failures()['raising']
    assert reason.startswith('RuntimeError in hook catena_register_device_types: '
                             'cannot list devices')
    assert str(catena.get_device('@good')) == '@good'
    # The failed plugin is unregistered: none of its other hooks is called.
    assert [name for name, _ in _manager.call_each('catena_runtime_info')
            if name == 'raising'] == []
    assert ('good', ['good info']) in _manager.call_each('catena_runtime_info')


def test_plugin_with_an_unknown_hook_is_recorded(entry_points):
    class Misspelled:
        @hookimpl
        def catena_register_device_types(self, extra_argument):
            return []

    entry_points(FakeEntryPoint('misspelled', Misspelled()),
                 FakeEntryPoint('good', device_plugin('@good')))
    assert 'misspelled' in _manager.failures()
    assert 'extra_argument' in _manager.failures()['misspelled']
    assert str(catena.get_device('@good')) == '@good'


# ---------------------------------------------------------------------------
# Environment switches
# ---------------------------------------------------------------------------


def test_disable_autoload(entry_points, monkeypatch):
    alpha, beta = entry_points(FakeEntryPoint('alpha', device_plugin('@alpha')),
                               FakeEntryPoint('beta', device_plugin('@beta')))
    monkeypatch.setenv('CATENA_DISABLE_PLUGIN_AUTOLOAD', '1')
    assert names_loaded() == list(_manager.DEFAULT_PLUGINS)
    assert (alpha.loads, beta.loads) == (0, 0)
    assert str(catena.get_device('@numpy')) == '@numpy'
    with pytest.raises(ValueError, match='unknown device'):
        catena.get_device('@alpha')


@pytest.mark.parametrize('value', ['0', ''])
def test_disable_autoload_off_values(entry_points, monkeypatch, value):
    alpha, = entry_points(FakeEntryPoint('alpha', device_plugin('@alpha')))
    monkeypatch.setenv('CATENA_DISABLE_PLUGIN_AUTOLOAD', value)
    assert 'alpha' in names_loaded()


def test_disable_autoload_with_allowlist(entry_points, monkeypatch):
    alpha, beta = entry_points(FakeEntryPoint('alpha', device_plugin('@alpha')),
                               FakeEntryPoint('beta', device_plugin('@beta')))
    monkeypatch.setenv('CATENA_DISABLE_PLUGIN_AUTOLOAD', '1')
    monkeypatch.setenv('CATENA_PLUGINS', 'beta')
    assert names_loaded() == [*_manager.DEFAULT_PLUGINS, 'beta']
    assert (alpha.loads, beta.loads) == (0, 1)


def test_allowlist(entry_points, monkeypatch):
    points = entry_points(*(FakeEntryPoint(name, device_plugin(f'@{name}'))
                            for name in ('a', 'b', 'c')))
    monkeypatch.setenv('CATENA_PLUGINS', ' a, c ,')
    assert names_loaded() == [*_manager.DEFAULT_PLUGINS, 'a', 'c']
    assert [p.loads for p in points] == [1, 0, 1]
    assert sorted(_registry.device_types_by_prefix) == ['@a', '@c', '@fake', '@numpy']


# ---------------------------------------------------------------------------
# A real (fake) distribution on PYTHONPATH, seen from a fresh interpreter
# ---------------------------------------------------------------------------


@pytest.fixture
def fake_site(tmp_path):
    """A directory with a broken and a working plugin distribution (.dist-info)."""
    def distribution(dist, version, entry_points):
        info = tmp_path / f'{dist.replace("-", "_")}-{version}.dist-info'
        info.mkdir()
        (info / 'METADATA').write_text(
            f'Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n', encoding='utf-8')
        (info / 'entry_points.txt').write_text(f'[catena]\n{entry_points}\n', encoding='utf-8')

    distribution('catena-broken', '0.0.1', 'broken = catena_broken_plugin')
    (tmp_path / 'catena_broken_plugin.py').write_text(
        "raise ImportError('catena_broken_plugin needs libbroken.so.7')\n", encoding='utf-8')
    distribution('catena-toy', '0.2.0', 'toy = catena_toy_plugin')
    (tmp_path / 'catena_toy_plugin.py').write_text(textwrap.dedent('''
        from catena import hookimpl
        from catena.backends import Device


        class ToyDevice(Device):
            prefix = '@toy'


        @hookimpl
        def catena_register_device_types():
            return [ToyDevice]


        @hookimpl
        def catena_runtime_info():
            return ['Toy: ready']
    '''), encoding='utf-8')
    return tmp_path


def run_python(site, *args):
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join([str(site), *filter(None, [env.get('PYTHONPATH')])])
    env.pop('CATENA_DISABLE_PLUGIN_AUTOLOAD', None)
    env['CATENA_PLUGINS'] = 'broken,toy'  # leave the installed plugins out
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_broken_distribution_in_runtime_info(fake_site):
    result = run_python(fake_site, '-m', 'catena', 'info')
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    broken, = [line for line in lines if line.startswith('  broken ')]
    assert broken.startswith('  broken (catena-broken 0.0.1): FAILED: ImportError on import: '
                             'catena_broken_plugin needs libbroken.so.7')
    assert 'catena_broken_plugin.py:1' in broken
    assert '  toy (catena-toy 0.2.0): loaded' in lines
    assert 'toy:' in lines and '  Toy: ready' in lines
    assert '  @toy: available' in lines
    assert '  @numpy: available' in lines


def test_broken_distribution_does_not_break_import(fake_site):
    code = textwrap.dedent('''
        import catena
        from catena.plugins import _manager
        assert not _manager.is_loaded()
        print(catena.get_device('@toy'))
        try:
            catena.get_device('@broken')
        except ValueError as error:
            print('ERROR', error)
    ''')
    result = run_python(fake_site, '-c', code)
    assert result.returncode == 0, result.stderr
    out = result.stdout.splitlines()
    assert out[0] == '@toy'
    assert out[1].startswith("ERROR unknown device '@broken'")
    assert 'broken (ImportError on import: catena_broken_plugin needs libbroken.so.7' in out[1]


def test_a_plugin_that_exits_is_recorded_as_failed(tmp_path):
    """sys.exit() in a plugin, at import or in a hook, is a failure like any other."""
    info = tmp_path / 'catena_exiting-0.0.1.dist-info'
    info.mkdir()
    (info / 'METADATA').write_text('Metadata-Version: 2.1\nName: catena-exiting\n'
                                   'Version: 0.0.1\n', encoding='utf-8')
    (info / 'entry_points.txt').write_text(
        '[catena]\nexits = catena_exiting_plugin\nexits_later = catena_exiting_hook\n',
        encoding='utf-8')
    (tmp_path / 'catena_exiting_plugin.py').write_text(
        "import sys\nsys.exit('no licence server')\n", encoding='utf-8')
    (tmp_path / 'catena_exiting_hook.py').write_text(textwrap.dedent('''
        import sys
        from catena import hookimpl


        @hookimpl
        def catena_runtime_info():
            sys.exit(3)
    '''), encoding='utf-8')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(tmp_path), *filter(None, [os.environ.get('PYTHONPATH')])]),
        CATENA_PLUGINS='exits,exits_later')
    env.pop('CATENA_DISABLE_PLUGIN_AUTOLOAD', None)
    result = subprocess.run([sys.executable, '-m', 'catena', 'info'], capture_output=True,
                            text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    exits, = [line for line in lines if line.startswith('  exits ')]
    assert 'FAILED: SystemExit on import: no licence server' in exits
    later, = [line for line in lines if line.startswith('  exits_later ')]
    assert 'FAILED: SystemExit in hook catena_runtime_info: 3' in later
    assert '  @numpy: available' in lines
