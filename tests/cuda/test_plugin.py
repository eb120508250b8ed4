"""catena-cuda as a plugin: registration, availability reasons, the cuda surface."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import numpy
import pytest

import catena
from catena import backend
from catena.plugins import _manager

catena_cuda = pytest.importorskip('catena_cuda')

GPU = catena_cuda.available
needs_gpu = pytest.mark.skipif(not GPU, reason='needs CuPy and a CUDA GPU')
needs_no_gpu = pytest.mark.skipif(GPU, reason='checks the behaviour without a GPU')

REASONS = ('CuPy is not installed', 'no CUDA GPU is visible', 'CuPy could not be imported')


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, **env)
    return subprocess.run([sys.executable, '-c', textwrap.dedent(code)], env=environment,
                          capture_output=True, text=True, timeout=120)


def _runtime_info() -> dict[str, list[str]]:
    return dict(_manager.call_each('catena_runtime_info'))


# ---------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------

def test_plugin_is_loaded_from_its_entry_point() -> None:
    records = {r.name: r for r in _manager.records()}
    assert records['cuda'].source == 'catena-cuda'
    assert records['cuda'].error is None
    assert 'catena_register_device_types' in records['cuda'].hooks


def test_plugin_import_does_not_import_cupy() -> None:
    result = _run('''
        import sys
        import catena_cuda.plugin
        import catena_cuda
        assert 'cupy' not in sys.modules, 'cupy imported at plugin import'
    ''')
    assert result.returncode == 0, result.stderr


def test_package_imports_and_explains_without_cupy() -> None:
    # A None entry in sys.modules makes "import cupy" fail as on a machine
    # without CuPy, even where CuPy is installed.
    result = _run('''
        import sys
        sys.modules['cupy'] = None
        import catena
        import catena_cuda
        assert catena_cuda.available is False
        try:
            catena_cuda.check_cuda_available()
        except RuntimeError as error:
            assert ("CuPy is not installed (pip install './packages/backend-cuda[cuda12]', "
                    'in a catena checkout)') in str(error)
        else:
            raise AssertionError('check_cuda_available did not raise')
        try:
            catena.get_device('@cupy:0')
        except RuntimeError as error:
            print(error)
        try:
            catena_cuda.cupy
        except AttributeError as error:
            print(error)
    ''')
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == ("device '@cupy:0' is unavailable: CuPy is not installed "
                        "(pip install './packages/backend-cuda[cuda12]', in a catena checkout)")
    assert lines[1].startswith('catena_cuda.cupy needs CuPy and a GPU: CuPy is not installed')


def test_no_visible_gpu_is_the_reason_when_cupy_counts_none(tmp_path: pathlib.Path) -> None:
    fake = tmp_path / 'cupy'
    fake.mkdir()
    (fake / '__init__.py').write_text(textwrap.dedent('''
        import types
        __version__ = '99.0.0-fake'
        class ndarray: pass
        cuda = types.SimpleNamespace(
            runtime=types.SimpleNamespace(getDeviceCount=lambda: 0))
    '''))
    result = _run('''
        import catena
        from catena.plugins import _manager
        try:
            catena.get_device('@cupy')
        except RuntimeError as error:
            print(error)
        print(dict(_manager.call_each('catena_runtime_info'))['cuda'][0])
    ''', PYTHONPATH=os.pathsep.join(
        p for p in (str(tmp_path), os.environ.get('PYTHONPATH')) if p))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    reason = 'no CUDA GPU is visible (cupy.cuda.runtime.getDeviceCount() == 0)'
    assert lines[0] == f"device '@cupy' is unavailable: {reason}"
    assert lines[1] == f'CuPy: 99.0.0-fake, unavailable ({reason})'


@needs_no_gpu
def test_get_device_names_the_reason() -> None:
    with pytest.raises(RuntimeError) as info:
        catena.get_device('@cupy:0')
    message = str(info.value)
    assert message.startswith("device '@cupy:0' is unavailable: ")
    assert any(reason in message for reason in REASONS), message


@needs_no_gpu
def test_legacy_gpu_id_names_the_reason() -> None:
    with pytest.raises(RuntimeError, match=r"device '@cupy:1' is unavailable: "):
        catena.get_device(1)


@needs_no_gpu
def test_runtime_info_says_cupy_is_unavailable() -> None:
    lines = _runtime_info()['cuda']
    assert lines[0].startswith('CuPy: ')
    assert 'unavailable (' in lines[0]


def test_test_backend_params_offer_gpu_zero_generic_and_with_kernels() -> None:
    params = dict(_manager.call_each('catena_test_backend_params'))['cuda']
    assert params == [
        {'device': '@cupy:0', 'config': {'use_cupy_kernels': 'never'}, 'marks': ['gpu']},
        {'device': '@cupy:0', 'config': {'use_cudnn': 'always'}, 'marks': ['gpu']}]


def test_configuration_keys_are_contributed() -> None:
    defaults = dict(_manager.call_each('catena_config_defaults'))['cuda']
    assert defaults == {'use_cudnn': 'auto', 'cudnn_deterministic': False, 'autotune': False,
                        'use_cudnn_tensor_core': 'auto',
                        'cudnn_fast_batch_normalization': False, 'use_cupy_kernels': 'auto'}
    assert catena.config.use_cupy_kernels == 'auto'


def test_configuration_levels_come_from_the_environment() -> None:
    result = _run('''
        import catena
        from catena.backends import _registry
        _registry.kernels  # loads the plugins
        print(catena.config.use_cudnn, catena.config.use_cupy_kernels)
    ''', CATENA_USE_CUDNN='never', CHAINER_USE_CUPY_KERNELS='Always')
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ['never', 'always']
    bad = _run('''
        from catena_cuda import _config
        _config.defaults()
    ''', CATENA_USE_CUPY_KERNELS='sometimes')
    assert bad.returncode != 0 and 'CATENA_USE_CUPY_KERNELS' in bad.stderr


def test_backend_module_is_catena_cuda() -> None:
    modules = dict(_manager.call_each('catena_backend_modules'))['cuda']
    assert modules == {'cuda': catena_cuda}


# ---------------------------------------------------------------------------
# The device class (specs work without a GPU)
# ---------------------------------------------------------------------------

def test_device_class_is_registered_under_its_prefix() -> None:
    assert backend.GpuDevice is catena_cuda.GpuDevice
    assert catena_cuda.GpuDevice.prefix == '@cupy'
    assert catena_cuda.GpuDevice.legacy_forward == 'forward_gpu'
    assert catena_cuda.GpuDevice.kernel_config_key == 'use_cudnn'


def test_bare_prefix_canonicalises_to_gpu_zero() -> None:
    device = catena_cuda.GpuDevice.parse(None)
    assert str(device) == '@cupy:0'
    assert device == catena_cuda.GpuDevice.from_device_id(0)
    assert hash(device) == hash(catena_cuda.GpuDevice(0))
    assert device != catena_cuda.GpuDevice(1)


def test_legacy_ids() -> None:
    assert catena_cuda.GpuDevice.from_legacy_id(-1) is None
    assert catena_cuda.GpuDevice.from_legacy_id(0) == catena_cuda.GpuDevice(0)


@pytest.mark.parametrize('rest', ['a', '-1', '0.5', ''])
def test_bad_index_in_spec(rest: str) -> None:
    with pytest.raises(ValueError, match='GPU index'):
        catena_cuda.GpuDevice.parse(rest)


def test_bad_constructor_arguments() -> None:
    with pytest.raises(TypeError, match='GPU index'):
        catena_cuda.GpuDevice('0')
    with pytest.raises(ValueError, match='>= 0'):
        catena_cuda.GpuDevice(-2)


# ---------------------------------------------------------------------------
# Chainer's backends.cuda surface
# ---------------------------------------------------------------------------

SURFACE = [
    'available', 'cudnn_enabled', 'get_device_from_id', 'get_device_from_array', 'to_gpu',
    'to_cpu', 'copy', 'get_array_module', 'check_cuda_available', 'DummyDevice',
    'GpuDevice', 'elementwise', 'reduce', 'raw', 'fuse', 'memoize', 'clear_memo',
    'set_max_workspace_size', 'get_max_workspace_size', 'should_use_cudnn',
    'should_use_cudnn_tensor_core',
]


@pytest.mark.parametrize('name', SURFACE)
def test_surface_name_exists(name: str) -> None:
    assert hasattr(catena_cuda, name)


def test_to_cpu_returns_numpy_arrays_in_the_same_structure() -> None:
    a = numpy.arange(3)
    b = numpy.ones((2, 2))
    out = catena_cuda.to_cpu([a, (b, None)])
    assert isinstance(out, list) and isinstance(out[1], tuple)
    assert out[0] is a and out[1][0] is b and out[1][1] is None
    scalar = catena_cuda.to_cpu(numpy.float32(2))
    assert type(scalar) is numpy.ndarray and scalar.shape == ()
    with pytest.raises(TypeError, match='object'):
        catena_cuda.to_cpu(object())


def test_to_cpu_of_a_variable_gives_its_array() -> None:
    a = numpy.arange(3, dtype=numpy.float32)
    assert catena_cuda.to_cpu(catena.Variable(a)) is a


def test_dummy_device_for_cpu_arrays() -> None:
    dummy = catena_cuda.DummyDevice
    assert catena_cuda.get_device_from_array(numpy.ones(2)) is dummy
    assert catena_cuda.get_device_from_id(None) is dummy
    assert int(dummy) == -1 and dummy.id == -1
    with dummy as entered:
        assert entered is dummy
    dummy.use()
    dummy.synchronize()


def test_get_array_module_of_numpy_is_numpy() -> None:
    assert catena_cuda.get_array_module(numpy.ones(1), None) is numpy


def test_memoize_caches_per_arguments_until_cleared() -> None:
    calls = []

    @catena_cuda.memoize()
    def square(x: int) -> int:
        calls.append(x)
        return x * x

    assert square(3) == 9 and square(3) == 9 and square(4) == 16
    assert calls == [3, 4]
    catena_cuda.clear_memo()
    assert square(3) == 9
    assert calls == [3, 4, 3]


def test_workspace_size_round_trips() -> None:
    old = catena_cuda.get_max_workspace_size()
    assert old == 8 * 1024 * 1024
    try:
        catena_cuda.set_max_workspace_size(1024)
        assert catena_cuda.get_max_workspace_size() == 1024
        with pytest.raises(ValueError):
            catena_cuda.set_max_workspace_size(-1)
    finally:
        catena_cuda.set_max_workspace_size(old)


def test_should_use_cudnn_is_false_while_cudnn_is_off() -> None:
    assert catena_cuda.cudnn_enabled is False
    with catena.using_config('use_cudnn', 'always'):
        assert catena_cuda.should_use_cudnn('==always') is False
        assert catena_cuda.should_use_cudnn('>=auto') is False
    with pytest.raises(ValueError, match='level'):
        catena_cuda.should_use_cudnn('always')


def test_should_use_cudnn_tensor_core_follows_config() -> None:
    with catena.using_config('use_cudnn_tensor_core', 'always'):
        assert catena_cuda.should_use_cudnn_tensor_core(numpy.float32) is True
    with catena.using_config('use_cudnn_tensor_core', 'never'):
        assert catena_cuda.should_use_cudnn_tensor_core(numpy.float16) is False
    with catena.using_config('use_cudnn_tensor_core', 'sometimes'):
        with pytest.raises(ValueError, match='use_cudnn_tensor_core'):
            catena_cuda.should_use_cudnn_tensor_core(numpy.float16)


@needs_no_gpu
def test_fuse_returns_the_function_without_a_gpu() -> None:
    def add(x: object, y: object) -> object:
        return x + y  # type: ignore[operator]

    assert catena_cuda.fuse(add) is add
    assert catena_cuda.fuse(kernel_name='add')(add) is add


@needs_no_gpu
@pytest.mark.parametrize('call', [
    lambda: catena_cuda.to_gpu(numpy.ones(2)),
    lambda: catena_cuda.get_device_from_id(0),
    lambda: catena_cuda.elementwise('T x', 'T y', 'y = x', 'copy'),
    lambda: catena_cuda.reduce('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'sum'),
    lambda: catena_cuda.raw('extern "C" __global__ void f() {}', 'f'),
    lambda: catena_cuda.copy(numpy.ones(2)),
])
def test_gpu_functions_raise_the_reason_without_a_gpu(call: object) -> None:
    with pytest.raises(RuntimeError, match='CUDA is not available: '):
        call()  # type: ignore[operator]


# ---------------------------------------------------------------------------
# On a GPU
# ---------------------------------------------------------------------------

@pytest.mark.gpu
@needs_gpu
def test_transfer_round_trip_through_the_device() -> None:
    import cupy

    device = catena.get_device('@cupy:0')
    assert isinstance(device, catena_cuda.GpuDevice) and str(device) == '@cupy:0'
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    y = device.send(x)
    assert isinstance(y, cupy.ndarray) and y.device.id == 0
    assert device.send(y) is y
    assert backend.get_device_from_array(y) == device
    assert backend.get_array_module(y) is cupy
    numpy.testing.assert_array_equal(device.to_numpy(y), x)
    numpy.testing.assert_array_equal(catena.get_device('@numpy').send(y), x)


@pytest.mark.gpu
@needs_gpu
def test_get_device_accepts_a_cupy_device() -> None:
    import cupy

    assert catena.get_device(cupy.cuda.Device(0)) == catena.get_device('@cupy:0')


@needs_gpu
def test_cuda_surface_on_a_gpu() -> None:
    import cupy

    x = numpy.arange(4, dtype=numpy.float32)
    y = catena_cuda.to_gpu(x, device=0)
    assert isinstance(y, cupy.ndarray)
    assert catena_cuda.get_device_from_array(y) == cupy.cuda.Device(0)
    numpy.testing.assert_array_equal(catena_cuda.to_cpu([y])[0], x)
    double = catena_cuda.elementwise('T x', 'T y', 'y = 2 * x', 'catena_test_double')
    assert double is catena_cuda.elementwise('T x', 'T y', 'y = 2 * x', 'catena_test_double')
    numpy.testing.assert_array_equal(double(y).get(), 2 * x)
    total = catena_cuda.reduce('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'catena_test_sum')
    assert float(total(y)) == 6.0
    z = catena_cuda.copy(y)
    assert z is not y
    numpy.testing.assert_array_equal(z.get(), x)
    assert _runtime_info()['cuda'][2].startswith('GPU @cupy:0: ')


@pytest.mark.gpu
@needs_gpu
def test_transfer_between_gpus() -> None:
    import cupy

    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip('needs two GPUs')
    x = catena.get_device('@cupy:0').send(numpy.arange(3))
    y = catena.get_device('@cupy:1').send(x)
    assert y.device.id == 1
    numpy.testing.assert_array_equal(y.get(), numpy.arange(3))
