"""space2depth: pixel blocks become channel blocks."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils import type_check


def _space2depth(x, r):
    batch, channels, height, width = x.shape
    y = np.empty((batch, channels * r * r, height // r, width // r), x.dtype)
    for c in range(channels):
        for i in range(r):
            for j in range(r):
                y[:, (i * r + j) * channels + c] = x[:, c, i::r, j::r]
    return y


@testing.parameterize(*testing.product({
    'shape_r': [((2, 2, 4, 6), 2), ((1, 1, 3, 6), 3), ((2, 3, 2, 2), 1)],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestSpace2Depth(testing.FunctionTestCase):

    def generate_inputs(self):
        shape, _ = self.shape_r
        return np.random.uniform(-1, 1, shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.space2depth(inputs[0], self.shape_r[1]),

    def forward_expected(self, inputs):
        return _space2depth(inputs[0], self.shape_r[1]),


def test_inverse_of_depth2space():
    x = np.random.rand(2, 3, 4, 6).astype(np.float32)
    np.testing.assert_array_equal(F.depth2space(F.space2depth(x, 2), 2).array, x)


@pytest.mark.parametrize('x, match', [
    (np.zeros((1, 1, 3, 4), np.float32), r'X\.shape\[2\] % 2 == 0'),
    (np.zeros((1, 1, 4, 5), np.float32), r'X\.shape\[3\] % 2 == 0'),
    (np.zeros((1, 4, 4), np.float32), r'X\.ndim == 4'),
    (np.zeros((1, 1, 4, 4), np.int64), r'X\.dtype\.kind == f'),
])
def test_invalid_input(x, match):
    with pytest.raises(type_check.InvalidType, match=match):
        F.space2depth(x, 2)


def test_invalid_factor():
    with pytest.raises(ValueError, match='r must be positive'):
        F.space2depth(np.zeros((1, 1, 2, 2), np.float32), -1)
