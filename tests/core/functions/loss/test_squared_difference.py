"""squared_difference: forward against its formula, gradients, bad arguments."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'shape': [(3, 4), (5,), ()],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestSquaredDifference(testing.FunctionTestCase):

    def generate_inputs(self):
        x1 = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        x2 = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return x1, x2

    def forward(self, inputs, device):
        x1, x2 = inputs
        return F.squared_difference(x1, x2),

    def forward_expected(self, inputs):
        x1, x2 = (v.astype(np.float64) for v in inputs)
        return ((x1 - x2) ** 2).astype(self.dtype),


def test_shape_mismatch_names_both_shapes():
    with pytest.raises(InvalidType, match=r'x1\.shape=\(2, 3\).*x2\.shape=\(3,\)'):
        F.squared_difference(np.zeros((2, 3), np.float32), np.zeros(3, np.float32))


def test_dtype_mismatch_names_both_dtypes():
    with pytest.raises(InvalidType, match=r'x1\.dtype=float32.*x2\.dtype=float64'):
        F.squared_difference(np.zeros(3, np.float32), np.zeros(3, np.float64))


def test_integer_inputs_are_rejected():
    with pytest.raises(InvalidType, match=r'x1\.dtype\.kind == f'):
        F.squared_difference(np.zeros(3, np.int32), np.zeros(3, np.int32))
