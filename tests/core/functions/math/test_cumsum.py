"""cumsum."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'shape_axis': [((3, 4), None), ((3, 4), 0), ((3, 4), 1), ((2, 3, 4), -1), ((5,), 0),
                   ((), None)],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestCumsum(testing.FunctionTestCase):

    def setUp(self):
        self.shape, self.axis = self.shape_axis
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.cumsum(inputs[0], axis=self.axis),

    def forward_expected(self, inputs):
        return np.cumsum(inputs[0].astype(np.float64), axis=self.axis).astype(self.dtype),


def test_axis_none_flattens():
    y = F.cumsum(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(y.array, [0, 1, 3, 6, 10, 15])


def test_bad_axis():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(InvalidType, match='axis'):
        F.cumsum(x, axis=2)
    with pytest.raises(InvalidType, match='axis'):
        F.cumsum(x, axis=-3)
    with pytest.raises(TypeError, match='axis'):
        F.cumsum(x, axis=(0, 1))
