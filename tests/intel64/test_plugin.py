"""catena-intel64 as a plugin: oneDNN loading, the '@intel64' device, the intel64 surface."""

from __future__ import annotations

import importlib.metadata
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import numpy
import pytest

import catena
from catena.plugins import _manager

catena_intel64 = pytest.importorskip('catena_intel64')

pytestmark = pytest.mark.ideep


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, **env)
    return subprocess.run([sys.executable, '-c', textwrap.dedent(code)], env=environment,
                          capture_output=True, text=True, timeout=120)


def _libdnnl() -> pathlib.Path:
    for file in importlib.metadata.files('onednn-cpu-gomp') or ():
        if file.name == 'libdnnl.so.3':
            return pathlib.Path(str(file.locate())).resolve()
    raise AssertionError('onednn-cpu-gomp lists no libdnnl.so.3')


REPORT = '''
    import catena, catena_intel64
    from catena.plugins import _manager
    print(dict(_manager.call_each('catena_runtime_info'))['intel64'][0])
    print(catena_intel64.is_ideep_available())
    try:
        catena.get_device('@intel64')
    except RuntimeError as error:
        print(error)
'''


# ---------------------------------------------------------------------------
# Registration and oneDNN
# ---------------------------------------------------------------------------

def test_plugin_is_loaded_from_its_entry_point() -> None:
    records = {r.name: r for r in _manager.records()}
    assert records['intel64'].source == 'catena-intel64'
    assert records['intel64'].error is None


def test_runtime_info_reports_the_onednn_version() -> None:
    line = dict(_manager.call_each('catena_runtime_info'))['intel64'][0]
    match = re.fullmatch(
        r'oneDNN: (\d+)\.(\d+)\.(\d+) \([0-9a-f]+\), CPU runtime OpenMP, ISA (\w+) \((.+)\)',
        line)
    assert match, line
    assert int(match[1]) == 3
    version = catena_intel64.dnnl_version()
    assert (version.major, version.minor, version.patch) == tuple(int(match[i]) for i in (1, 2, 3))
    assert version.cpu_runtime == 'OpenMP'
    assert str(version) == f'{match[1]}.{match[2]}.{match[3]}'
    assert pathlib.Path(match[5]).resolve() == _libdnnl()


def test_plugin_import_loads_no_onednn() -> None:
    result = _run('''
        import catena_intel64.plugin, catena_intel64
        with open('/proc/self/maps') as maps:
            assert 'libdnnl' not in maps.read(), 'oneDNN loaded at import'
        assert catena_intel64.is_ideep_available()
        with open('/proc/self/maps') as maps:
            assert 'libdnnl' in maps.read(), 'oneDNN not loaded on first use'
    ''')
    assert result.returncode == 0, result.stderr


def test_missing_library_is_reported_not_raised_at_load() -> None:
    result = _run(REPORT, CATENA_ONEDNN_LIBRARY='/nonexistent/libdnnl.so.3')
    assert result.returncode == 0, result.stderr
    info, available, error = result.stdout.splitlines()
    assert info.startswith('oneDNN: unavailable (oneDNN could not be loaded from '
                           '/nonexistent/libdnnl.so.3: ')
    assert available == 'False'
    assert error.startswith("device '@intel64' is unavailable: oneDNN could not be loaded")


def test_missing_libgomp_names_the_system_package(tmp_path: pathlib.Path) -> None:
    # A copy of libdnnl whose dependency on libgomp.so.1 is renamed to a
    # library that does not exist behaves as on a machine without libgomp.
    data = _libdnnl().read_bytes()
    assert b'libgomp.so.1\x00' in data
    patched = tmp_path / 'libdnnl.so.3'
    patched.write_bytes(data.replace(b'libgomp.so.1\x00', b'libgomp.so.Z\x00'))
    result = _run(REPORT, CATENA_ONEDNN_LIBRARY=str(patched))
    assert result.returncode == 0, result.stderr
    info, available, error = result.stdout.splitlines()
    assert 'needs the GNU OpenMP runtime libgomp.so.1' in info
    assert 'apt-get install libgomp1' in info
    assert available == 'False'
    assert error.startswith("device '@intel64' is unavailable: oneDNN (")


def test_test_backend_params() -> None:
    params = dict(_manager.call_each('catena_test_backend_params'))['intel64']
    assert params == [{'device': '@intel64', 'config': {'use_ideep': 'always'},
                       'marks': ['ideep']}]


def test_backend_module_is_catena_intel64() -> None:
    modules = dict(_manager.call_each('catena_backend_modules'))['intel64']
    assert modules == {'intel64': catena_intel64}


# ---------------------------------------------------------------------------
# The device
# ---------------------------------------------------------------------------

def test_get_device_returns_the_intel64_device() -> None:
    device = catena.get_device('@intel64')
    assert isinstance(device, catena_intel64.Intel64Device)
    assert str(device) == '@intel64'
    assert device == catena_intel64.Intel64Device()
    assert device.xp is numpy
    assert catena.backend.Intel64Device is catena_intel64.Intel64Device


def test_device_takes_no_index() -> None:
    with pytest.raises(ValueError, match='takes no index'):
        catena.get_device('@intel64:0')


def test_send_keeps_numpy_arrays() -> None:
    device = catena.get_device('@intel64')
    x = numpy.arange(4.0)
    assert device.send(x) is x
    sent = device.send({'a': [x, None], 'b': numpy.float32(1)})
    assert sent['a'][0] is x and sent['a'][1] is None
    assert type(sent['b']) is numpy.ndarray and sent['b'].shape == ()


def test_numpy_arrays_still_belong_to_the_numpy_device() -> None:
    assert str(catena.backend.get_device_from_array(numpy.ones(2))) == '@numpy'


# ---------------------------------------------------------------------------
# Chainer's backends.intel64 surface
# ---------------------------------------------------------------------------

def test_ideep_is_available() -> None:
    assert catena_intel64.is_ideep_available() is True
    catena_intel64.check_ideep_available()


@pytest.mark.parametrize('config, always, auto', [
    ('always', True, True),
    ('auto', False, True),
    ('never', False, False),
])
def test_should_use_ideep(config: str, always: bool, auto: bool) -> None:
    with catena.using_config('use_ideep', config):
        assert catena_intel64.should_use_ideep('==always') is always
        assert catena_intel64.should_use_ideep('>=auto') is auto


def test_should_use_ideep_rejects_bad_levels() -> None:
    with pytest.raises(ValueError, match='level'):
        catena_intel64.should_use_ideep('auto')
    with catena.using_config('use_ideep', 'sometimes'):
        with pytest.raises(ValueError, match='use_ideep'):
            catena_intel64.should_use_ideep('>=auto')


def test_inputs_all_ready() -> None:
    x2 = numpy.ones((2, 3), numpy.float32)
    x4 = numpy.ones((1, 2, 3, 4), numpy.float32)
    x3 = numpy.ones((1, 2, 3), numpy.float32)
    assert catena_intel64.inputs_all_ready((x2, x4)) is True
    assert catena_intel64.inputs_all_ready((x2, catena.Variable(x4))) is True
    assert catena_intel64.inputs_all_ready((x2, x3)) is False
    assert catena_intel64.inputs_all_ready((x3,), supported_ndim=(3,)) is True
    assert catena_intel64.inputs_all_ready((x2, 1.0)) is False


WAIT_POLICY = '''
    import os, catena_intel64
    assert catena_intel64.is_ideep_available()
    print(os.environ.get('OMP_WAIT_POLICY'))
'''


def test_loading_onednn_makes_idle_openmp_threads_sleep() -> None:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ('OMP_WAIT_POLICY', 'GOMP_SPINCOUNT')}
    result = subprocess.run([sys.executable, '-c', textwrap.dedent(WAIT_POLICY)],
                            env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ['PASSIVE']


@pytest.mark.parametrize('name, value', [('OMP_WAIT_POLICY', 'ACTIVE'),
                                         ('GOMP_SPINCOUNT', '10000')])
def test_loading_onednn_keeps_the_users_openmp_wait_setting(name: str, value: str) -> None:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ('OMP_WAIT_POLICY', 'GOMP_SPINCOUNT')}
    environment[name] = value
    result = subprocess.run([sys.executable, '-c', textwrap.dedent(WAIT_POLICY)],
                            env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    expected = value if name == 'OMP_WAIT_POLICY' else 'None'
    assert result.stdout.split() == [expected]
