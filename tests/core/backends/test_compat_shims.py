"""catena.backends.cuda and catena.backends.intel64: the compat shims over the plugins.

The no-plugin cases run in a subprocess with CATENA_DISABLE_PLUGIN_AUTOLOAD=1,
so they hold whether or not catena-cuda and catena-intel64 are installed.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

import catena.backends.cuda
import catena.backends.intel64

CUDA_HINT = ("needs the catena-cuda package: pip install './packages/backend-cuda[cuda12]', "
             'in a catena checkout')
INTEL64_HINT = ("needs the catena-intel64 package: pip install './packages/backend-intel64', "
                'in a catena checkout')


def _run(code: str, environment: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, '-c', textwrap.dedent(code)],
                          env=dict(os.environ) if environment is None else environment,
                          capture_output=True, text=True, timeout=120)


def _without_plugins(code: str) -> None:
    environment = dict(os.environ, CATENA_DISABLE_PLUGIN_AUTOLOAD='1')
    environment.pop('CATENA_PLUGINS', None)  # an allowlist would load plugins again
    result = _run(code, environment)
    assert result.returncode == 0, result.stdout + result.stderr


# ---------------------------------------------------------------------------
# Import is free; attribute access loads plugins
# ---------------------------------------------------------------------------

def test_import_loads_no_plugin_and_attribute_access_does() -> None:
    result = _run('''
        import sys
        import catena
        import catena.backends.cuda as cuda
        import catena.backends.intel64 as intel64
        from catena.plugins import _manager
        assert not _manager.is_loaded(), 'importing the shims loaded the plugins'
        cuda.available
        assert _manager.is_loaded(), 'reading cuda.available did not load the plugins'
        assert 'cupy' not in sys.modules or cuda.available
    ''')
    assert result.returncode == 0, result.stderr


def test_dunder_lookups_do_not_load_plugins() -> None:
    result = _run('''
        import catena.backends.cuda as cuda
        from catena.plugins import _manager
        assert not hasattr(cuda, '__wrapped__')
        assert not _manager.is_loaded()
    ''')
    assert result.returncode == 0, result.stderr


_FORBIDDEN_IMPORT = re.compile(
    r'^\s*(?:import|from)\s+(cupy|cupyx|catena_cuda|catena_intel64|catena_zoo|catena_onnx'
    r'|onnx|ideep4py)\b', re.MULTILINE)


def test_core_never_imports_cupy_or_a_plugin_module() -> None:
    import catena.backends

    core = pathlib.Path(catena.backends.__file__).resolve().parents[1]
    offenders = [
        f'{path.relative_to(core)}: {match.group(0).strip()}'
        for path in sorted(core.rglob('*.py'))
        for match in _FORBIDDEN_IMPORT.finditer(path.read_text(encoding='utf-8'))
    ]
    assert not offenders, offenders


# ---------------------------------------------------------------------------
# With the plugins installed, the shims are the plugins' modules
# ---------------------------------------------------------------------------

def test_cuda_shim_serves_the_plugin_names() -> None:
    catena_cuda = pytest.importorskip('catena_cuda')
    cuda = catena.backends.cuda
    for name in ('to_gpu', 'to_cpu', 'copy', 'GpuDevice', 'elementwise', 'memoize',
                 'check_cuda_available', 'get_device_from_array', 'should_use_cudnn'):
        assert getattr(cuda, name) is getattr(catena_cuda, name), name
    assert cuda.available is catena_cuda.available
    assert cuda.DummyDevice is catena_cuda.DummyDevice
    assert 'to_gpu' in dir(cuda)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        cuda.no_such_name
    if not catena_cuda.available:
        # Chainer's placeholders stand in for what the plugin cannot give,
        # and they carry the plugin's reason.
        assert cuda.cupy is not catena_cuda and not hasattr(cuda.cupy, 'ndarray')
        with pytest.raises(AttributeError, match='CUDA is not available'):
            cuda.cupy.ndarray
        assert not isinstance(object(), cuda.ndarray)


def test_intel64_shim_serves_the_plugin_names() -> None:
    catena_intel64 = pytest.importorskip('catena_intel64')
    intel64 = catena.backends.intel64
    for name in ('Intel64Device', 'is_ideep_available', 'check_ideep_available',
                 'should_use_ideep', 'inputs_all_ready'):
        assert getattr(intel64, name) is getattr(catena_intel64, name), name
    assert intel64.is_ideep_available() is catena_intel64.is_ideep_available()
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        intel64.no_such_name


# ---------------------------------------------------------------------------
# Without the plugins: the CPU-safe surface, and install hints for the rest
# ---------------------------------------------------------------------------

def test_cuda_shim_without_the_plugin_serves_the_cpu_safe_surface() -> None:
    _without_plugins('''
        import numpy
        import catena
        import catena.backends.cuda as cuda

        assert cuda.available is False
        assert cuda.cudnn_enabled is False
        x = numpy.arange(3.0)
        assert cuda.get_array_module(x) is numpy
        assert cuda.get_array_module(catena.Variable(x)) is numpy
        assert cuda.to_cpu(x) is x
        assert cuda.to_cpu(None) is None
        nested = cuda.to_cpu([x, (x, None)])
        assert isinstance(nested, list) and isinstance(nested[1], tuple)
        assert nested[0] is x and nested[1][0] is x and nested[1][1] is None
        try:
            cuda.to_cpu(catena.Variable(x))
        except TypeError as error:
            assert 'variable.array' in str(error), error
        else:
            raise AssertionError('to_cpu(Variable) did not raise TypeError')
        scalar = cuda.to_cpu(numpy.float32(1))
        assert type(scalar) is numpy.ndarray and scalar.shape == ()
        try:
            cuda.to_cpu(object())
        except TypeError:
            pass
        else:
            raise AssertionError('to_cpu(object()) did not raise TypeError')

        dummy = cuda.DummyDevice
        assert isinstance(dummy, cuda.DummyDeviceType)
        assert cuda.get_device_from_array(x) is dummy
        assert cuda.get_device_from_id(None) is dummy
        assert int(dummy) == -1 and dummy.id == -1
        with dummy as entered:
            assert entered is dummy
        dummy.use()

        for call in (cuda.check_cuda_available, lambda: cuda.get_device_from_id(0),
                     lambda: cuda.to_gpu(x), lambda: cuda.to_gpu(None), lambda: cuda.copy(x),
                     lambda: cuda.elementwise('T x', 'T y', 'y = x', 'copy'),
                     lambda: cuda.reduce('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'sum'),
                     lambda: cuda.raw('', 'kernel'), lambda: cuda.Device(0),
                     lambda: cuda.ndarray((2,)), lambda: cuda.GpuDevice.from_device_id(0),
                     lambda: cuda.get_cudnn_dropout_states(),
                     lambda: cuda.to_cpu(x, stream=object())):
            try:
                call()
            except RuntimeError as error:
                assert "pip install './packages/backend-cuda[cuda12]'" in str(error), error
            else:
                raise AssertionError(f'{call} did not raise RuntimeError')
    ''')


def test_cuda_shim_without_the_plugin_has_chainers_placeholders() -> None:
    _without_plugins('''
        import sys
        import warnings

        import numpy
        import catena
        import catena.cuda
        from catena.backends import cuda
        from catena.backends.cuda import cupy

        assert catena.cuda is cuda and sys.modules['catena.cuda'] is cuda
        assert cupy is cuda.cupy and cupy is not None and cupy is not numpy
        assert catena.backend.get_array_module(numpy.ones(1)) is not cuda.cupy
        assert not hasattr(cuda.cupy, 'ndarray')
        try:
            cuda.cupy.asarray
        except AttributeError as error:
            assert "pip install './packages/backend-cuda[cuda12]'" in str(error), error
        else:
            raise AssertionError('cuda.cupy.asarray did not raise AttributeError')
        assert not isinstance(numpy.ones(1), cuda.ndarray)
        assert not isinstance(cuda.DummyDevice, cuda.Device)
        assert cuda.GpuDevice is catena.backend.GpuDevice
        assert not isinstance(catena.get_device('@numpy'), cuda.GpuDevice)
        assert cuda.GpuDevice.from_array(numpy.ones(1)) is None

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            assert cuda.get_device(numpy.ones(1)) is cuda.DummyDevice
        assert caught and caught[0].category is DeprecationWarning
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                cuda.get_device(0)
        except RuntimeError:
            pass
        else:
            raise AssertionError('get_device(0) did not raise RuntimeError')

        @cuda.memoize(for_each_device=True)
        def square(value):
            return value * value
        assert square(3) == 9 and square.__name__ == 'square'
        cuda.clear_memo()
        assert cuda.fuse(square) is square
        assert cuda.fuse(kernel_name='k')(square) is square

        size = cuda.get_max_workspace_size()
        cuda.set_max_workspace_size(1024)
        assert cuda.get_max_workspace_size() == 1024
        cuda.set_max_workspace_size(size)
        assert cuda.should_use_cudnn('>=auto') is False
        assert cuda.should_use_cudnn_tensor_core(numpy.float16) is False
        try:
            cuda.should_use_cudnn('auto')
        except ValueError:
            pass
        else:
            raise AssertionError('a bad cuDNN level did not raise ValueError')
        assert {'cupy', 'to_gpu', 'DummyDevice'} <= set(dir(cuda))
    ''')


@pytest.mark.parametrize('name', ['Stream', 'Event', 'memory_pool', 'cudnn', 'libcudnn'])
def test_cuda_shim_without_the_plugin_names_the_package(name: str) -> None:
    _without_plugins(f'''
        import catena.backends.cuda as cuda
        assert not hasattr(cuda, {name!r})
        try:
            getattr(cuda, {name!r})
        except AttributeError as error:
            expected = "catena.backends.cuda.{name} {CUDA_HINT}"
            assert str(error) == expected, str(error)
    ''')


def test_intel64_shim_without_the_plugin_answers_no() -> None:
    _without_plugins('''
        import numpy
        import catena.backends.intel64 as intel64

        assert intel64.is_ideep_available() is False
        assert intel64.should_use_ideep('==always') is False
        assert intel64.should_use_ideep('>=auto') is False
        assert intel64.inputs_all_ready((numpy.ones((2, 2)),)) is False
        try:
            intel64.should_use_ideep('always')
        except ValueError:
            pass
        else:
            raise AssertionError('a bad level did not raise ValueError')
        try:
            intel64.check_ideep_available()
        except RuntimeError as error:
            assert "pip install './packages/backend-intel64'" in str(error), error
        else:
            raise AssertionError('check_ideep_available did not raise')
    ''')


def test_intel64_shim_without_the_plugin_has_chainers_placeholders() -> None:
    _without_plugins('''
        import numpy
        import catena
        import catena.backends.intel64 as intel64

        assert intel64.Intel64Device is catena.backend.Intel64Device
        assert intel64.Intel64Device.from_array(numpy.ones(1)) is None
        try:
            intel64.Intel64Device()
        except RuntimeError as error:
            assert "pip install './packages/backend-intel64'" in str(error), error
        else:
            raise AssertionError('Intel64Device() did not raise RuntimeError')
        assert not isinstance(numpy.ones(1), intel64.mdarray)
    ''')


def test_intel64_shim_keeps_the_mdarray_placeholder_with_the_plugin() -> None:
    pytest.importorskip('catena_intel64')
    import numpy

    assert not isinstance(numpy.ones(1), catena.backends.intel64.mdarray)


@pytest.mark.parametrize('name', ['dnnl_version', 'ideep'])
def test_intel64_shim_without_the_plugin_names_the_package(name: str) -> None:
    _without_plugins(f'''
        import catena.backends.intel64 as intel64
        assert not hasattr(intel64, {name!r})
        try:
            getattr(intel64, {name!r})
        except AttributeError as error:
            expected = "catena.backends.intel64.{name} {INTEL64_HINT}"
            assert str(error) == expected, str(error)
    ''')
