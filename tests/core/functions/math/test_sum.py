"""sum."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'shape_axis': [((3, 2, 4), None), ((3, 2, 4), 0), ((3, 2, 4), -1), ((3, 2, 4), (0, 2)),
                   ((3, 2, 4), (-1, 0, 1)), ((5,), 0), ((), None)],
    'keepdims': [False],
    'dtype': [np.float16, np.float32, np.float64],
}), *testing.product({
    'shape_axis': [((3, 2, 4), None), ((3, 2, 4), -1), ((3, 2, 4), (0, 2))],
    'keepdims': [True],
    'dtype': [np.float32],
}))
class TestSum(testing.FunctionTestCase):

    def setUp(self):
        self.shape, self.axis = self.shape_axis
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
        if self.shape == ():
            # The gradient is gy itself: catena.gradient_check's double backward
            # cannot check a first-order gradient that is one of its inputs.
            self.skip_double_backward_test = True

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.sum(inputs[0], axis=self.axis, keepdims=self.keepdims),

    def forward_expected(self, inputs):
        y = np.sum(inputs[0].astype(np.float64), axis=self.axis, keepdims=self.keepdims)
        return np.asarray(y, dtype=self.dtype),


def test_bad_axis():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(InvalidType, match='2 <'):
        F.sum(x, axis=2)
    with pytest.raises(InvalidType):
        F.sum(x, axis=-3)
    with pytest.raises(ValueError, match='axis'):
        F.sum(x, axis=(1, 1))
    with pytest.raises(TypeError, match='axis'):
        F.sum(x, axis=1.0)


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match='x.dtype.kind'):
        F.sum(np.zeros((2, 3), np.int32))
