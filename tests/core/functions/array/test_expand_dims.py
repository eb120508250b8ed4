"""expand_dims: a new axis of length one."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils import type_check


@testing.parameterize(*testing.product_dict(
    [{'shape': (2, 3), 'axis': axis} for axis in (-3, -2, -1, 0, 1, 2)]
    + [{'shape': (), 'axis': 0}, {'shape': (), 'axis': -1}],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestExpandDims(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.expand_dims(inputs[0], self.axis),

    def forward_expected(self, inputs):
        x = inputs[0]
        ndim = x.ndim + 1
        axis = self.axis % ndim
        return x.reshape(x.shape[:axis] + (1,) + x.shape[axis:]),


@pytest.mark.parametrize('axis, match', [(3, r'x\.ndim >= 3'), (-4, r'x\.ndim >= 3')])
def test_axis_out_of_range(axis, match):
    with pytest.raises(type_check.InvalidType, match=match):
        F.expand_dims(np.zeros((2, 3), np.float32), axis)


def test_axis_must_be_int():
    with pytest.raises(TypeError, match='axis must be an int'):
        F.expand_dims(np.zeros(2, np.float32), (0,))
