"""concat: forward, gradients, type errors and the double backward of its split."""

# Chainer-style tests draw from NumPy's global generator, which the base class seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils import type_check


@testing.parameterize(*testing.product_dict(
    [
        {'shapes': [(2, 3, 4), (2, 1, 4), (2, 2, 4)], 'axis': 1},
        {'shapes': [(2, 3), (4, 3)], 'axis': 0},
        {'shapes': [(2, 3, 2), (2, 3, 1)], 'axis': -1},
        {'shapes': [(2, 3, 2), (2, 3, 3)], 'axis': 2},
        {'shapes': [(3,), (2,), (1,)], 'axis': 0},
        {'shapes': [(2, 3)], 'axis': 1},
        {'shapes': [(2, 0), (2, 3)], 'axis': 1},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestConcat(testing.FunctionTestCase):

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, shape).astype(self.dtype)
                     for shape in self.shapes)

    def forward(self, inputs, device):
        return F.concat(inputs, self.axis),

    def forward_expected(self, inputs):
        return np.concatenate(inputs, axis=self.axis),


def test_default_axis_is_one():
    a = np.zeros((2, 1), np.float32)
    b = np.ones((2, 2), np.float32)
    assert F.concat((a, b)).shape == (2, 3)


@pytest.mark.parametrize('xs, axis, names', [
    ([np.zeros((2, 3), np.float32), np.zeros((3, 3), np.float32)], 1, 'xs[1].shape[0]'),
    ([np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float64)], 0, 'xs[1].dtype'),
    ([np.zeros((2, 3), np.float32), np.zeros((2, 3, 1), np.float32)], 0, 'xs[1].ndim'),
    ([np.zeros((2, 3), np.float32)], 2, 'xs[0].ndim > 2'),
    ([np.zeros((2, 3), np.float32)], -3, 'xs[0].ndim >= 3'),
    ([np.zeros((), np.float32)], 0, 'xs[0].ndim > 0'),
])
def test_invalid_inputs(xs, axis, names):
    with pytest.raises(type_check.InvalidType) as info:
        F.concat(xs, axis)
    assert names in str(info.value)


def test_empty_and_bad_axis():
    with pytest.raises(type_check.InvalidType, match='size'):
        F.concat([], 0)
    with pytest.raises(TypeError, match='axis must be an int'):
        F.concat([np.zeros(2, np.float32)], 0.5)


@pytest.mark.parametrize('device', ['@numpy', '@fake'])
def test_double_backward_with_one_input_unused(device):
    device = catena.get_device(device)
    x1 = catena.Variable(device.send_array(np.random.rand(2, 3)))
    x2 = catena.Variable(device.send_array(np.random.rand(2, 2)))
    y = F.concat((x1, x2), axis=1)
    gy = catena.Variable(device.send_array(np.random.rand(2, 5)))
    gx1, = catena.grad([y], [x1], grad_outputs=[gy], enable_double_backprop=True)
    np.testing.assert_array_equal(device.to_numpy(gx1.array), device.to_numpy(gy.array)[:, :3])
    w = device.send_array(np.random.rand(2, 3))
    ggy, = catena.grad([gx1], [gy], grad_outputs=[w])
    expected = np.concatenate([device.to_numpy(w), np.zeros((2, 2))], axis=1)
    np.testing.assert_array_equal(device.to_numpy(ggy.array), expected)
    assert catena.backend.get_device_from_array(ggy.array) == device
