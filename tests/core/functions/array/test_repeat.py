"""repeat: each element repeated, with the copies' gradients summed."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils import type_check


@testing.parameterize(*testing.product_dict(
    [
        {'shape': (2, 3), 'repeats': 2, 'axis': None},
        {'shape': (2, 3), 'repeats': 3, 'axis': 1},
        {'shape': (2, 3), 'repeats': (1, 0, 2), 'axis': -1},
        {'shape': (2, 3), 'repeats': (2, 1), 'axis': 0},
        {'shape': (2, 2), 'repeats': (1, 0, 3, 2), 'axis': None},
        {'shape': (2, 3), 'repeats': 0, 'axis': 0},
        {'shape': (2, 3), 'repeats': (0, 0, 0), 'axis': 1},
        {'shape': (), 'repeats': 3, 'axis': None},
        {'shape': (3,), 'repeats': [2], 'axis': 0},
        # A bool counts 0 or 1, as in NumPy.
        {'shape': (2, 3), 'repeats': True, 'axis': 1},
        {'shape': (2, 3), 'repeats': False, 'axis': None},
        {'shape': (3,), 'repeats': (True, False, True), 'axis': 0},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestRepeat(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.repeat(inputs[0], self.repeats, self.axis),

    def forward_expected(self, inputs):
        x = inputs[0]
        axis = self.axis
        if axis is None:
            x, axis = x.reshape(-1), 0
        counts = self.repeats
        if isinstance(counts, int):
            counts = [counts] * x.shape[axis]
        elif len(counts) == 1:
            counts = list(counts) * x.shape[axis]
        pieces = [np.take(x, [i] * n, axis=axis) for i, n in enumerate(counts)]
        return np.concatenate(pieces, axis=axis),


@pytest.mark.parametrize('repeats, axis, error, match', [
    (-1, None, ValueError, 'must not be negative'),
    (1.5, None, TypeError, 'repeats must be an int or a tuple'),
    (2, 0.5, TypeError, 'axis must be an int or None'),
    (2, True, TypeError, 'axis must be an int or None'),
])
def test_bad_arguments(repeats, axis, error, match):
    with pytest.raises(error, match=match):
        F.repeat(np.zeros((2, 3), np.float32), repeats, axis)


@pytest.mark.parametrize('repeats, axis, match', [
    ((1, 2), 1, r'x\.shape\[1\] == 2'),
    ((1, 2), None, r'x\.size == 2'),
    (2, 2, r'x\.ndim > 2'),
    (2, -3, r'x\.ndim >= 3'),
])
def test_invalid_types(repeats, axis, match):
    with pytest.raises(type_check.InvalidType, match=match):
        F.repeat(np.zeros((2, 3), np.float32), repeats, axis)
