"""rollaxis: an axis rolled backwards to a position."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils import type_check


def _rolled(x, axis, start):
    axis %= x.ndim
    if start < 0:
        start += x.ndim
    order = list(range(x.ndim))
    order.remove(axis)
    order.insert(start - 1 if axis < start else start, axis)
    return x.transpose(order).copy()


@testing.parameterize(*testing.product({
    'axis_start': [(0, 0), (2, 0), (0, 3), (0, 2), (-1, 1), (1, -3), (2, 3)],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestRollaxis(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (2, 3, 4)).astype(self.dtype),

    def forward(self, inputs, device):
        return F.rollaxis(inputs[0], *self.axis_start),

    def forward_expected(self, inputs):
        return _rolled(inputs[0], *self.axis_start),


def test_default_start():
    assert F.rollaxis(np.zeros((3, 4, 5), np.float32), 2).shape == (5, 3, 4)


@pytest.mark.parametrize('axis, start, match', [
    (3, 0, r'x\.ndim > 3'),
    (-4, 0, r'x\.ndim >= 4'),
    (0, 4, r'x\.ndim >= 4'),
    (0, -4, r'x\.ndim >= 4'),
])
def test_out_of_range(axis, start, match):
    with pytest.raises(type_check.InvalidType, match=match):
        F.rollaxis(np.zeros((2, 3, 4), np.float32), axis, start)
