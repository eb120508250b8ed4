"""bias."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'shapes_axis': [((3, 2, 4), (2,), 1), ((3, 2, 4), (2, 4), 1), ((3, 2, 4), (3,), 0),
                    ((3, 2, 4), (4,), 2), ((3, 2), (3, 2), 0)],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestBias(testing.FunctionTestCase):

    def setUp(self):
        self.x_shape, self.y_shape, self.axis = self.shapes_axis
        # The gradient of x is gy itself, which catena.gradient_check's double
        # backward cannot check (it drops the gradient of a leaf output).
        self.skip_double_backward_test = True

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, self.x_shape).astype(self.dtype),
                np.random.uniform(-1, 1, self.y_shape).astype(self.dtype))

    def forward(self, inputs, device):
        x, y = inputs
        return F.bias(x, y, axis=self.axis),

    def forward_expected(self, inputs):
        x, y = inputs
        shape = (1,) * self.axis + y.shape + (1,) * (x.ndim - self.axis - y.ndim)
        return (x + y.reshape(shape)).astype(self.dtype),


def test_bad_arguments():
    x = np.zeros((3, 2, 4), np.float32)
    with pytest.raises(ValueError, match='axis'):
        F.bias(x, np.zeros((3,), np.float32), axis=1)
    with pytest.raises(ValueError, match='axis'):
        F.bias(x, np.zeros((2, 4), np.float32), axis=2)
    with pytest.raises(TypeError, match='axis'):
        F.bias(x, np.zeros((2,), np.float32), axis=1.0)
    with pytest.raises(InvalidType):
        F.bias(x, np.zeros((2,), np.float64), axis=1)
