"""mean_absolute_error: forward against its formula, gradients, bad arguments."""

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
class TestMeanAbsoluteError(testing.FunctionTestCase):

    dodge_nondifferentiable = True
    def generate_inputs(self):
        x0 = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        x1 = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return x0, x1

    def forward(self, inputs, device):
        x0, x1 = inputs
        return F.mean_absolute_error(x0, x1),

    def forward_expected(self, inputs):
        x0, x1 = (v.astype(np.float64) for v in inputs)
        return (np.asarray(np.abs(x0 - x1).mean())).astype(self.dtype),


def test_shape_mismatch_names_both_shapes():
    with pytest.raises(InvalidType, match=r'x0\.shape=\(2, 3\).*x1\.shape=\(3,\)'):
        F.mean_absolute_error(np.zeros((2, 3), np.float32), np.zeros(3, np.float32))


def test_dtype_mismatch_names_both_dtypes():
    with pytest.raises(InvalidType, match=r'x0\.dtype=float32.*x1\.dtype=float64'):
        F.mean_absolute_error(np.zeros(3, np.float32), np.zeros(3, np.float64))


def test_integer_inputs_are_rejected():
    with pytest.raises(InvalidType, match=r'x0\.dtype\.kind == f'):
        F.mean_absolute_error(np.zeros(3, np.int32), np.zeros(3, np.int32))


def test_float16_mean_of_many_large_differences_does_not_overflow():
    # the sum (16384 * 4) is beyond float16's range; the mean (4) is not
    x0 = np.full((64, 1, 16, 16), 2, np.float16)
    x1 = np.full((64, 1, 16, 16), -2, np.float16)
    loss = F.mean_absolute_error(x0, x1)
    assert loss.dtype == np.float16
    assert float(loss.array) == 4.0
