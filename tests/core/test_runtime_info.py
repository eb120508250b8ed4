import io
import os
import platform
import re
import subprocess
import sys

import numpy as np

import catena
from catena.plugins import _manager

PLUGIN_LINE = re.compile(r'^  (\S+) \((.+)\): (loaded|FAILED: .+)$')
DEVICE_LINE = re.compile(r'^  (@\w+): (available|unavailable: .+)$')


def run_catena(*args, env=None):
    environment = dict(os.environ)
    environment.update(env or {})
    return subprocess.run([sys.executable, '-m', 'catena', *args], capture_output=True,
                          text=True, env=environment, timeout=120)


def sections(lines):
    """{'Plugins': [...], 'Devices': [...], 'Problems': [...]} from the report."""
    result, current = {}, None
    for line in lines:
        if line in ('Plugins:', 'Devices:', 'Problems:'):
            current = result.setdefault(line[:-1], [])
        elif current is not None and line.startswith('  '):
            current.append(line)
        else:
            current = None
    return result


def test_info_with_installed_plugins():
    result = run_catena('info')
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f'catena: {catena.__version__}'
    assert lines[1].startswith(f'Python: {platform.python_version()} (')
    assert f' on {platform.platform()}' in lines[1]
    assert lines[2] in ('Engine: compiled (CATENA_ENGINE=auto)',
                        'Engine: compiled (CATENA_ENGINE=compiled)',
                        'Engine: python (CATENA_ENGINE=python)') \
        or lines[2].startswith('Engine: python (the compiled engine cannot be used (')
    assert lines[3].startswith(('CPU memory pool: keeps up to ', 'CPU memory pool: off ('))
    assert lines[4].startswith(f'NumPy: {np.__version__} (BLAS')
    found = sections(lines)
    plugins = [PLUGIN_LINE.match(line) for line in found['Plugins']]
    assert all(plugins), found['Plugins']
    names = [m.group(1) for m in plugins]
    assert names[:2] == list(_manager.DEFAULT_PLUGINS)
    assert all(m.group(2) == 'builtin' and m.group(3) == 'loaded' for m in plugins[:2])
    devices = [DEVICE_LINE.match(line) for line in found['Devices']]
    assert all(devices), found['Devices']
    statuses = {m.group(1): m.group(2) for m in devices}
    assert statuses['@numpy'] == 'available'
    assert '@fake' not in statuses  # a device for tests only
    assert found['Problems']


def test_info_matches_the_registry():
    """Every plugin record and device type of this process appears with its status."""
    from catena.backends import _registry

    lines = run_catena('info').stdout.splitlines()
    found = sections(lines)
    records = _manager.records()
    assert len(found['Plugins']) == len(records)
    for record, line in zip(records, found['Plugins']):
        assert line.startswith(f'  {record.name} ({record.source}')
        assert line.endswith(': loaded') == (record.error is None)
    for_users = {prefix: device_type for prefix, device_type
                 in _registry.device_types_by_prefix.items() if not device_type.test_only}
    assert sorted(line.split(':')[0].strip() for line in found['Devices']) == sorted(for_users)
    for prefix, device_type in for_users.items():
        reason = device_type.unavailable_reason()
        expected = 'available' if reason is None else f'unavailable: {reason}'
        assert f'  {prefix}: {expected}' in found['Devices']


def test_info_without_autoload_lists_builtins_only():
    result = run_catena('info', env={'CATENA_DISABLE_PLUGIN_AUTOLOAD': '1',
                                     'CATENA_PLUGINS': ''})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    found = sections(lines)
    assert found['Plugins'] == [f'  {name} (builtin): loaded'
                                for name in _manager.DEFAULT_PLUGINS]
    assert found['Devices'] == ['  @numpy: available']
    assert found['Problems'] == ['  (none)']
    assert any(line.startswith('NumPy: ') for line in lines)


def test_info_verbose_lists_hooks():
    result = run_catena('info', '--verbose', env={'CATENA_DISABLE_PLUGIN_AUTOLOAD': '1'})
    assert result.returncode == 0, result.stderr
    assert '  catena.backends._numpy (builtin): loaded [hooks: ' in result.stdout
    assert 'catena_register_device_types' in result.stdout
    assert '\n  @fake: available (for tests)\n' in result.stdout


def test_usage():
    for args in ((), ('--help',), ('-h',)):
        result = run_catena(*args)
        assert result.returncode == 0, result.stderr
        assert 'usage: python -m catena' in result.stdout
        assert 'info' in result.stdout


def test_unknown_subcommand_exits_2():
    result = run_catena('frobnicate')
    assert result.returncode == 2
    assert 'frobnicate' in result.stderr and 'usage:' in result.stderr
    assert result.stdout == ''


def test_print_runtime_info_in_process(capsys):
    out = io.StringIO()
    catena.print_runtime_info(out)
    text = out.getvalue()
    assert text.startswith(f'catena: {catena.__version__}\n')
    assert '\nPlugins:\n' in text and '\nDevices:\n' in text and '\nProblems:\n' in text
    assert '  @numpy: available\n' in text
    catena.print_runtime_info()
    assert capsys.readouterr().out == text


def test_main_function(capsys):
    from catena import __main__

    assert __main__.main(['info']) == 0
    assert capsys.readouterr().out.startswith('catena: ')


def test_get_runtime_info_is_what_print_runtime_info_prints():
    from catena import _runtime_info

    info = _runtime_info._get_runtime_info()
    assert catena.__version__ in str(info)
    out = io.StringIO()
    _runtime_info.print_runtime_info(out)
    assert out.getvalue() == str(info)
