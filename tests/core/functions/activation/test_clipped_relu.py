"""clipped_relu: min(max(0, x), z); the gradient is 1 strictly between 0 and z."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 4), ()],
    'z': [0.75, 20.0],
}))
class TestClippedReLU(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape)
        for kink in (0.0, self.z):
            x = np.where(np.abs(x - kink) < 0.05, kink + 0.1, x)
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.clipped_relu(x, self.z),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(np.minimum(np.maximum(x, 0), self.z), dtype=self.dtype),


def test_default_ceiling_is_20():
    x = catena.Variable(np.array([-1.0, 10.0, 30.0], np.float32))
    y = F.clipped_relu(x)
    np.testing.assert_array_equal(y.array, [0.0, 10.0, 20.0])
    y.grad = np.ones(3, np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, [0.0, 1.0, 0.0])
    assert type(y.creator_node).__name__ == 'ClippedReLU'
    assert y.creator_node.cap == 20.0


def test_integer_ceiling_keeps_the_dtype():
    y = F.clipped_relu(np.array([-1.0, 0.5, 3.0], np.float16), 1)
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y.array, np.array([0.0, 0.5, 1.0], np.float16))


@pytest.mark.parametrize('z, error', [(-1.0, ValueError), (float('nan'), ValueError),
                                      ('2', TypeError), (True, TypeError)])
def test_bad_ceiling(z, error):
    with pytest.raises(error, match='z must'):
        F.clipped_relu(np.zeros(3, np.float32), z)


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match='x.dtype.kind'):
        F.clipped_relu(np.array([1, 2], np.int32))
