"""sum_to."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'shapes': [((3, 2, 4), (2, 4)), ((3, 2, 4), (1, 4)), ((3, 2, 4), (3, 1, 1)),
               ((3, 2, 4), ()), ((3, 2, 4), (1,)), ((2, 3), (1, 1))],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestSumTo(testing.FunctionTestCase):

    def setUp(self):
        self.in_shape, self.out_shape = self.shapes
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.in_shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.sum_to(inputs[0], self.out_shape),

    def forward_expected(self, inputs):
        x = inputs[0].astype(np.float64)
        lead = x.ndim - len(self.out_shape)
        y = x.sum(axis=tuple(range(lead)))
        axes = tuple(i for i, n in enumerate(self.out_shape) if n == 1 and y.shape[i] != 1)
        y = y.sum(axis=axes, keepdims=True)
        return np.asarray(y, dtype=self.dtype).reshape(self.out_shape),


def test_same_shape_returns_the_input():
    x = catena.Variable(np.ones((2, 3), np.float32))
    assert F.sum_to(x, (2, 3)) is x
    y = F.sum_to(np.ones((2, 3), np.float32), (2, 3))
    assert isinstance(y, catena.Variable) and not y.requires_grad


@pytest.mark.parametrize('shape', [(2,), (4, 2, 3), (2, 2)])
def test_shape_not_broadcast_from(shape):
    with pytest.raises(InvalidType):
        F.sum_to(np.ones((2, 3), np.float32), shape)
