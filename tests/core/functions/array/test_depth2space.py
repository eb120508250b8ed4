"""depth2space: channel blocks become pixel blocks."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils import type_check


def _depth2space(x, r):
    batch, channels, height, width = x.shape
    c_out = channels // (r * r)
    y = np.empty((batch, c_out, height * r, width * r), x.dtype)
    for c in range(c_out):
        for i in range(r):
            for j in range(r):
                y[:, c, i::r, j::r] = x[:, (i * r + j) * c_out + c]
    return y


@testing.parameterize(*testing.product({
    'shape_r': [((2, 8, 2, 3), 2), ((1, 9, 1, 2), 3), ((2, 3, 2, 2), 1)],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestDepth2Space(testing.FunctionTestCase):

    def generate_inputs(self):
        shape, _ = self.shape_r
        return np.random.uniform(-1, 1, shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.depth2space(inputs[0], self.shape_r[1]),

    def forward_expected(self, inputs):
        return _depth2space(inputs[0], self.shape_r[1]),


def test_documented_example():
    x = np.arange(24, dtype=np.float32).reshape(1, 4, 2, 3)
    y = F.depth2space(x, 2)
    np.testing.assert_array_equal(y.array[0, 0], [[0, 6, 1, 7, 2, 8],
                                                  [12, 18, 13, 19, 14, 20],
                                                  [3, 9, 4, 10, 5, 11],
                                                  [15, 21, 16, 22, 17, 23]])


@pytest.mark.parametrize('x, match', [
    (np.zeros((1, 6, 2, 2), np.float32), r'X\.shape\[1\] % 4 == 0'),
    (np.zeros((4, 2, 2), np.float32), r'X\.ndim == 4'),
    (np.zeros((1, 4, 2, 2), np.int32), r'X\.dtype\.kind == f'),
])
def test_invalid_input(x, match):
    with pytest.raises(type_check.InvalidType, match=match):
        F.depth2space(x, 2)


def test_invalid_factor():
    x = np.zeros((1, 4, 2, 2), np.float32)
    with pytest.raises(ValueError, match='r must be positive'):
        F.depth2space(x, 0)
    with pytest.raises(TypeError, match='r must be an int'):
        F.depth2space(x, 2.0)
