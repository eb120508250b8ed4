"""copy: transfers between devices; the gradient goes back to the input's device."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import backend, gradient_check, testing
from catena.testing._fake_device import FakeArray


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 2), ()],
}))
class TestCopySameDevice(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.copy(x, device),

    def forward_expected(self, inputs):
        return inputs[0].copy(),


PAIRS = [('@numpy', '@fake'), ('@fake', '@numpy'), ('@fake', '@fake'), ('@numpy', '@numpy')]


def _array_type(device):
    return FakeArray if str(device) == '@fake' else np.ndarray


@pytest.mark.parametrize('src, dst', PAIRS)
def test_forward_and_backward_between_devices(src, dst):
    src_device, dst_device = catena.get_device(src), catena.get_device(dst)
    host = np.random.uniform(-1, 1, (2, 3)).astype(np.float32)
    x = catena.Variable(src_device.send_array(host))
    y = F.copy(x, dst)
    assert type(y.array) is _array_type(dst_device)
    assert y.device == dst_device
    np.testing.assert_array_equal(dst_device.to_numpy(y.array), host)
    gy = np.random.uniform(-1, 1, (2, 3)).astype(np.float32)
    y.grad = dst_device.send_array(gy)
    y.backward()
    assert type(x.grad) is _array_type(src_device)
    np.testing.assert_array_equal(src_device.to_numpy(x.grad), gy)


@pytest.mark.parametrize('src, dst', PAIRS)
def test_double_backward_between_devices(src, dst):
    src_device, dst_device = catena.get_device(src), catena.get_device(dst)
    x = catena.Variable(src_device.send_array(np.random.rand(3)))
    y = F.copy(x, dst)
    gy = catena.Variable(dst_device.send_array(np.random.rand(3)))
    gx, = catena.grad([y], [x], grad_outputs=[gy], enable_double_backprop=True)
    assert gx.device == src_device
    w = src_device.send_array(np.random.rand(3))
    ggy, = catena.grad([gx], [gy], grad_outputs=[w])
    assert ggy.device == dst_device
    np.testing.assert_array_equal(dst_device.to_numpy(ggy.array), src_device.to_numpy(w))


@pytest.mark.parametrize('src, dst', PAIRS)
def test_gradient_check_between_devices(src, dst):
    src_device = catena.get_device(src)
    x = src_device.send_array(np.random.rand(2, 2))
    gy = catena.get_device(dst).send_array(np.random.rand(2, 2))
    gradient_check.check_backward(lambda v: F.copy(v, dst), x, gy)


@pytest.mark.parametrize('spec', [-1, np.int64(-1), '@numpy', np, backend.CpuDevice()])
def test_destination_specs_for_the_cpu(spec):
    x = catena.get_device('@fake').send_array(np.arange(3.0))
    y = F.copy(x, spec)
    assert type(y.array) is np.ndarray
    np.testing.assert_array_equal(y.array, [0, 1, 2])


def test_same_device_gives_a_view():
    x = np.arange(4.0)
    y = F.copy(x, '@numpy')
    assert y.array is not x and np.shares_memory(y.array, x)


def test_unknown_destination():
    with pytest.raises(ValueError, match='unknown device'):
        F.copy(np.zeros(2), '@nosuchdevice')
    with pytest.raises(TypeError, match='device_spec'):
        F.copy(np.zeros(2), 1.5)


def test_chainers_dummy_cuda_device_means_the_cpu():
    from catena.backends import cuda

    x = catena.get_device('@fake').send_array(np.arange(3.0))
    y = F.copy(x, cuda.DummyDevice)
    assert type(y.array) is np.ndarray
    assert isinstance(y.device, backend.CpuDevice)
    np.testing.assert_array_equal(y.array, [0, 1, 2])
