"""diagonal: batched diagonals and their scattered gradient."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils import type_check


@testing.parameterize(*testing.product_dict(
    [
        {'shape': (3, 4), 'offset': 0, 'axis1': 0, 'axis2': 1},
        {'shape': (3, 4), 'offset': 1, 'axis1': 0, 'axis2': 1},
        {'shape': (3, 4), 'offset': -2, 'axis1': 1, 'axis2': 0},
        {'shape': (2, 3, 4), 'offset': 0, 'axis1': 1, 'axis2': 2},
        {'shape': (2, 3, 4), 'offset': 1, 'axis1': -1, 'axis2': 0},
        {'shape': (2, 2), 'offset': 5, 'axis1': 0, 'axis2': 1},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestDiagonal(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.diagonal(inputs[0], self.offset, self.axis1, self.axis2),

    def forward_expected(self, inputs):
        x = inputs[0]
        return np.diagonal(x, self.offset, self.axis1, self.axis2).copy(),


def test_defaults():
    x = np.arange(9, dtype=np.float32).reshape(3, 3)
    np.testing.assert_array_equal(F.diagonal(x).array, [0, 4, 8])


@pytest.mark.parametrize('shape, kwargs, match', [
    ((3,), {}, r'x\.ndim >= 2'),
    ((3, 3), {'axis1': 2}, r'x\.ndim > 2'),
    ((3, 3), {'axis2': -3}, r'x\.ndim >= 3'),
    ((3, 3), {'axis1': 1, 'axis2': -1}, 'both name axis 1'),
])
def test_invalid_axes(shape, kwargs, match):
    with pytest.raises(type_check.InvalidType, match=match):
        F.diagonal(np.zeros(shape, np.float32), **kwargs)


def test_non_int_arguments():
    with pytest.raises(TypeError, match='offset must be an int'):
        F.diagonal(np.zeros((2, 2), np.float32), offset=0.5)
