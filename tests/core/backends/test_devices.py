import numpy as np
import pytest

import catena
from catena import backend
from catena.testing._fake_device import FakeArray


def test_get_device_from_specs():
    cpu = backend.get_device('@numpy')
    assert str(cpu) == '@numpy' and cpu.xp is np
    assert backend.get_device(cpu) is cpu
    assert backend.get_device(-1) == cpu
    assert backend.get_device(np) == cpu
    assert str(backend.get_device('@fake')) == '@fake'
    assert backend.get_device('@numpy') == backend.CpuDevice()
    assert hash(backend.get_device('@numpy')) == hash(backend.CpuDevice())
    assert backend.get_device('-1') == cpu  # Chainer's legacy id, as a string
    assert repr(cpu) == '<CpuDevice (numpy)>'


def test_bad_specs_say_what_is_expected():
    with pytest.raises(ValueError, match='unknown device .@nowhere.*registered device types'):
        backend.get_device('@nowhere')
    with pytest.raises(RuntimeError, match='ChainerX device specs'):
        backend.get_device('native:0')
    with pytest.raises(RuntimeError, match='ChainerX'):
        backend.using_device('native:0')  # checked before the block is entered
    with pytest.raises(TypeError, match='device_spec must be'):
        backend.get_device(3.5)
    with pytest.raises(ValueError, match='takes no index'):
        backend.get_device('@numpy:1')
    with pytest.raises(ValueError, match='takes no index'):
        backend.using_device('@numpy:0')
    with pytest.raises(TypeError, match='device_spec must be'):
        backend.using_device(('native', 0))


def test_device_is_not_a_context_manager():
    with pytest.raises(RuntimeError, match='using_device'):
        with backend.get_device('@numpy'):
            pass
    with catena.using_device('@numpy'):
        pass


def test_get_device_from_several_arrays():
    fake = backend.get_device('@fake').send_array(np.ones(2))
    assert str(backend.get_device_from_array(np.ones(2), fake)) == '@fake'
    assert str(backend.get_device_from_array(None, 1.0, fake, np.ones(2))) == '@fake'
    assert backend.get_device_from_array(np.ones(2), np.float32(1)) == backend.CpuDevice()
    assert backend.get_device_from_array() == backend.CpuDevice()


def test_get_device_from_array():
    assert str(backend.get_device_from_array(np.ones(2))) == '@numpy'
    assert str(backend.get_device_from_array(np.float32(1))) == '@numpy'
    fake = backend.get_device('@fake').send_array(np.ones(2))
    assert isinstance(fake, FakeArray)
    assert str(backend.get_device_from_array(fake)) == '@fake'
    assert str(backend.get_device_from_array(catena.Variable(fake))) == '@fake'
    assert str(backend.get_device_from_array(None)) == '@numpy'


def test_get_array_module():
    fake = backend.get_device('@fake').send_array(np.ones(2))
    assert backend.get_array_module(np.ones(2)) is np
    assert backend.get_array_module(np.ones(2), None, 3) is np
    xp = backend.get_array_module(np.ones(2), fake)
    assert xp is not np
    assert isinstance(xp.zeros(3), FakeArray)
    assert isinstance(xp.asarray([1.0]), FakeArray)


def test_transfers_between_devices():
    a = np.arange(4, dtype=np.float32)
    fake_device = backend.get_device('@fake')
    cpu = backend.get_device('@numpy')
    f = fake_device.send_array(a)
    assert isinstance(f, FakeArray)
    back = cpu.send_array(f)
    assert type(back) is np.ndarray
    np.testing.assert_array_equal(back, a)
    nested = fake_device.send({'a': a, 'b': [a, None], 'c': (a,)})
    assert isinstance(nested['a'], FakeArray) and nested['b'][1] is None
    assert isinstance(nested['c'][0], FakeArray)


def test_variable_to_device_moves_array_and_grad():
    x = catena.Variable(np.ones(2, np.float32))
    x.grad = np.ones(2, np.float32)
    assert x.to_device('@fake') is x
    assert isinstance(x.array, FakeArray) and isinstance(x.grad, FakeArray)
    assert str(x.device) == '@fake'
    x.to_cpu()
    assert type(x.array) is np.ndarray and type(x.grad) is np.ndarray


def test_functions_run_on_the_fake_device():
    x = catena.Variable(np.array([0.5, -0.5], np.float32)).to_device('@fake')
    y = catena.functions.sum(catena.functions.tanh(x) * 2 + x)
    assert isinstance(y.array, FakeArray)
    y.backward()
    assert isinstance(x.grad, FakeArray)
    np.testing.assert_allclose(np.asarray(x.grad.view(np.ndarray)),
                               2 * (1 - np.tanh([0.5, -0.5]) ** 2) + 1, rtol=1e-6)


def test_copyto_across_devices():
    dst = backend.get_device('@fake').send_array(np.zeros(2))
    backend.copyto(dst, np.array([1.0, 2.0]))
    np.testing.assert_array_equal(dst.view(np.ndarray), [1.0, 2.0])


def test_array_types_and_compatibility():
    fake = backend.get_device('@fake').send_array(np.ones(2))
    assert np.ndarray in catena.get_array_types() and FakeArray in catena.get_array_types()
    assert catena.get_cpu_array_types() == (np.ndarray, np.generic)
    assert catena.is_arrays_compatible([np.ones(2), np.ones(3), None])
    assert not catena.is_arrays_compatible([np.ones(2), fake])


def test_plugin_devices_are_named_on_backend():
    try:
        gpu = backend.GpuDevice
    except AttributeError as error:
        assert 'catena-cuda' in str(error)
    else:
        assert gpu.prefix == '@cupy'
