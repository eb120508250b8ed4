"""dstack: depth-wise concatenation, 0-d to n-d."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils import type_check


@testing.parameterize(*testing.product({
    'shapes': [[(), ()], [(3,), (3,)], [(2, 3), (2, 3)], [(2, 3, 1), (2, 3, 2)],
               [(1, 2, 3, 4), (1, 2, 1, 4)], [(2, 3)]],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestDstack(testing.FunctionTestCase):

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes)

    def forward(self, inputs, device):
        return F.dstack(inputs),

    def forward_expected(self, inputs):
        return np.dstack(inputs),


@pytest.mark.parametrize('shapes, match', [
    ([(2,), (3,)], r'xs\[0\]\.shape\[0\] == xs\[1\]\.shape\[0\]'),
    ([(2, 3), (2, 4)], r'xs\[0\]\.shape\[1\] == xs\[1\]\.shape\[1\]'),
    ([(2, 3, 1), (3, 3, 1)], r'xs\[0\]\.shape\[0\] == xs\[1\]\.shape\[0\]'),
    ([(2, 3, 1), (2, 3)], r'xs\[0\]\.ndim == xs\[1\]\.ndim'),
])
def test_invalid_shapes(shapes, match):
    with pytest.raises(type_check.InvalidType, match=match):
        F.dstack([np.zeros(s, np.float32) for s in shapes])
