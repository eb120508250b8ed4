"""moveaxis: axes moved to new positions."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils import type_check


def _moved(x, source, destination):
    source = [source] if isinstance(source, int) else list(source)
    destination = [destination] if isinstance(destination, int) else list(destination)
    source = [a % x.ndim for a in source]
    destination = [a % x.ndim for a in destination]
    order = [a for a in range(x.ndim) if a not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return x.transpose(order).copy()


@testing.parameterize(*testing.product_dict(
    [
        {'source': 0, 'destination': -1},
        {'source': -1, 'destination': 0},
        {'source': 1, 'destination': 1},
        {'source': (0, 1), 'destination': (-1, -2)},
        {'source': [2, 0], 'destination': [0, 1]},
        {'source': (), 'destination': ()},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestMoveaxis(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (2, 3, 4)).astype(self.dtype),

    def forward(self, inputs, device):
        return F.moveaxis(inputs[0], self.source, self.destination),

    def forward_expected(self, inputs):
        return _moved(inputs[0], self.source, self.destination),


@pytest.mark.parametrize('source, destination, error, match', [
    ((0, 0), (1, 2), ValueError, 'source contains repeated axes'),
    ((0, 1), (2,), ValueError, 'same number of axes'),
    (0.5, 1, TypeError, 'source must be an int or a tuple'),
    (3, 0, type_check.InvalidType, r'x\.ndim > 3'),
    (0, -4, type_check.InvalidType, r'x\.ndim >= 4'),
    ((0, -3), (1, 2), type_check.InvalidType, 'source = \\(0, -3\\) repeats an axis'),
])
def test_invalid_axes(source, destination, error, match):
    with pytest.raises(error, match=match):
        F.moveaxis(np.zeros((2, 3, 4), np.float32), source, destination)
