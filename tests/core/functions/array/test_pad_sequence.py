"""pad_sequence: sequences of different lengths padded into one array."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils import type_check


@testing.parameterize(*testing.product_dict(
    [{'lengths_tail': t} for t in [((3, 1, 2), ()), ((2, 2), (3,)), ((0, 2, 1), (2, 1)),
                                   ((2,), ())]],
    [{'length': None, 'padding': 0}, {'length': 4, 'padding': -1.5}],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestPadSequence(testing.FunctionTestCase):

    def generate_inputs(self):
        lengths, tail = self.lengths_tail
        return tuple(np.random.uniform(-1, 1, (n,) + tail).astype(self.dtype)
                     for n in lengths)

    def forward(self, inputs, device):
        return F.pad_sequence(inputs, self.length, self.padding),

    def forward_expected(self, inputs):
        length = self.length or max(len(x) for x in inputs)
        rows = [np.concatenate([x, np.full((length - len(x),) + x.shape[1:], self.padding,
                                           dtype=self.dtype)]) for x in inputs]
        return np.array(rows, dtype=self.dtype),


def test_integer_sequences():
    y = F.pad_sequence([np.array([1, 2], np.int32), np.array([3], np.int32)], padding=-1)
    np.testing.assert_array_equal(y.array, [[1, 2], [3, -1]])
    assert y.dtype == np.int32


@pytest.mark.parametrize('xs, length, match', [
    ([np.zeros(3, np.float32)], 2, r'xs\[0\]\.shape\[0\] <= 2'),
    ([np.zeros((2, 3), np.float32), np.zeros((2, 4), np.float32)], None,
     r'xs\[0\]\.shape\[1\] == xs\[1\]\.shape\[1\]'),
    ([np.zeros(2, np.float32), np.zeros(2, np.float64)], None, 'dtype'),
    ([np.zeros((), np.float32)], None, r'xs\[0\]\.ndim > 0'),
    ([], None, 'size'),
])
def test_invalid_inputs(xs, length, match):
    with pytest.raises(type_check.InvalidType, match=match):
        F.pad_sequence(xs, length)


def test_invalid_length():
    with pytest.raises(ValueError, match='length must not be negative'):
        F.pad_sequence([np.zeros(2, np.float32)], -1)
    with pytest.raises(TypeError, match='length must be an int'):
        F.pad_sequence([np.zeros(2, np.float32)], 2.0)
