"""Chainer's backend names that exist on every machine: stand-ins and thin modules."""

from __future__ import annotations

import types

import numpy as np
import pytest

import catena
from catena import backend
from catena.backends import _absent, _chainerx, _cpu, _registry, cuda
from catena.testing._fake_device import FakeArray


@pytest.fixture
def fake_cuda_plugin(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """A catena-cuda stand-in that serves to_gpu but, like a GPU-less machine, no cupy."""
    plugin = types.ModuleType('fake_catena_cuda')

    def to_gpu(array: object) -> str:
        return 'plugin to_gpu'

    def check_cuda_available() -> None:
        raise RuntimeError('CUDA is not available: no GPU in this test')

    def module_getattr(name: str) -> object:
        raise AttributeError(f'fake_catena_cuda.{name} needs CuPy and a GPU')

    plugin.to_gpu = to_gpu  # type: ignore[attr-defined]
    plugin.check_cuda_available = check_cuda_available  # type: ignore[attr-defined]
    plugin.__getattr__ = module_getattr  # type: ignore[attr-defined]
    modules = dict(_registry.backend_modules.items())
    modules['cuda'] = plugin
    monkeypatch.setattr(_registry, 'backend_modules', modules)
    return plugin


def test_cuda_names_go_to_an_installed_plugin(fake_cuda_plugin: types.ModuleType) -> None:
    assert cuda.to_gpu(np.ones(1)) == 'plugin to_gpu'
    with pytest.raises(AttributeError, match='needs CuPy and a GPU'):
        cuda.memory_pool
    # The stand-ins of the no-plugin case do not hide the plugin.
    with pytest.raises(AttributeError, match='fake_catena_cuda.copy'):
        cuda.copy


def test_cuda_placeholders_fill_in_for_a_plugin_without_cupy(
        fake_cuda_plugin: types.ModuleType) -> None:
    assert cuda.cupy is not None and cuda.cupy is not np
    assert not isinstance(np.ones(1), cuda.ndarray)
    with pytest.raises(AttributeError, match='no GPU in this test'):
        cuda.cupy.ndarray
    with pytest.raises(RuntimeError, match='no GPU in this test'):
        cuda.Device(0)
    assert 'cupy' in dir(cuda) and 'to_gpu' in dir(cuda)


def test_cpu_device_supports_numpy_arrays_only() -> None:
    assert backend.CpuDevice.supported_array_types == (np.ndarray,)
    assert backend.CpuDevice.from_array(np.ones(2)) == backend.CpuDevice()
    for value in (None, 1, (), np.float32(1), np.ones(2).view(FakeArray)):
        assert backend.CpuDevice.from_array(value) is None, value
    # Scalars still belong to the CPU when asked for their device.
    assert backend.get_device_from_array(np.float32(1)) == backend.CpuDevice()
    assert np.generic in backend.get_array_types()
    assert backend.get_array_module(np.float32(1)) is np


def test_cpu_device_is_array_supported() -> None:
    device = backend.CpuDevice()
    assert device.is_array_supported(np.ones(2))
    assert not device.is_array_supported(np.ones(2).view(FakeArray))
    assert not device.is_array_supported(np.float32(1))


@pytest.mark.parametrize('name', ['GpuDevice', 'Intel64Device', 'ChainerxDevice'])
def test_backend_device_classes_always_exist(name: str) -> None:
    device_type = getattr(backend, name)
    assert issubclass(device_type, backend.Device)
    assert not isinstance(backend.CpuDevice(), device_type)
    for value in (None, 1, (), np.ones(2)):
        assert device_type.from_array(value) is None


@pytest.mark.parametrize('device_type', [_absent.GpuDevice, _absent.Intel64Device,
                                         _absent.ChainerxDevice])
def test_absent_devices_cannot_be_made(device_type: type[_absent.AbsentDevice]) -> None:
    with pytest.raises(RuntimeError, match='install|not supported'):
        device_type()
    assert device_type.unavailable_reason() == device_type.missing


def test_chainerx_is_unsupported() -> None:
    with pytest.raises(RuntimeError, match='ChainerX is not supported'):
        backend.ChainerxDevice.from_fallback_device(backend.CpuDevice())
    x = np.ones(2)
    assert backend.from_chx(x) is x
    assert backend.to_chx(None) is None
    assert backend.to_chx([None, (None,)]) == [None, (None,)]
    with pytest.raises(RuntimeError, match='ChainerX is not supported'):
        _chainerx.to_chx([x])


def test_cpu_module_to_cpu() -> None:
    x = np.ones(2)
    assert _cpu.CpuDevice is backend.CpuDevice
    assert _cpu._to_cpu(x) is x
    assert _cpu._to_cpu(None) is None
    fake = np.arange(3.0).view(FakeArray)
    host = _cpu._to_cpu(fake)
    assert type(host) is np.ndarray
    np.testing.assert_array_equal(host, [0, 1, 2])
    scalar = _cpu._to_cpu(np.float32(2))
    assert type(scalar) is np.ndarray and scalar.shape == () and scalar.dtype == np.float32
    with pytest.raises(TypeError, match='variable.array'):
        _cpu._to_cpu(catena.Variable(x))
    with pytest.raises(TypeError):
        _cpu._to_cpu(object())
    nested = _cpu._to_cpu((fake, [x, None]))
    assert type(nested) is tuple and type(nested[1]) is list
    assert type(nested[0]) is np.ndarray and nested[1][0] is x and nested[1][1] is None
