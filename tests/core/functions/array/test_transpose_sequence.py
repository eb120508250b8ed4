"""transpose_sequence."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _with_dtypes(params):
    """Every case in float32; the first case also in float16 and float64."""
    first = {key: values[:1] for key, values in params.items()}
    return (testing.product({**params, 'dtype': [np.float32]})
            + testing.product({**first, 'dtype': [np.float16, np.float64]}))


@testing.parameterize(*_with_dtypes({
    'lengths': [(4, 3, 3, 1), (2,), (3, 3), (3, 1, 0)],
    'unit': [(), (2,)],
}))
class TestTransposeSequence(testing.FunctionTestCase):

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, (n,) + self.unit).astype(self.dtype)
                     for n in self.lengths)

    def forward(self, inputs, device):
        return F.transpose_sequence(list(inputs))

    def forward_expected(self, inputs):
        steps = max(self.lengths)
        return tuple(np.array([x[t] for x in inputs if len(x) > t], dtype=self.dtype)
                     .reshape((-1,) + self.unit) for t in range(steps))


def test_round_trip_and_gradient_with_unused_steps():
    xs = [catena.Variable(np.arange(3.0)), catena.Variable(np.arange(2.0) + 10),
          catena.Variable(np.zeros(0))]
    ys = F.transpose_sequence(xs)
    assert [y.array.tolist() for y in ys] == [[0.0, 10.0], [1.0, 11.0], [2.0]]
    back = F.transpose_sequence(ys)
    assert [x.array.tolist() for x in back] == [[0.0, 1.0, 2.0], [10.0, 11.0]]
    F.sum(ys[1] * 2).backward()  # steps 0 and 2 take no part
    assert xs[0].grad.tolist() == [0.0, 2.0, 0.0]
    assert xs[1].grad.tolist() == [0.0, 2.0]
    assert xs[2].grad.shape == (0,)


def test_empty_input_gives_empty_output():
    assert F.transpose_sequence([]) == ()


def test_increasing_lengths_are_rejected():
    with pytest.raises(InvalidType, match=r'xs\[0\]\.shape\[0\] >= xs\[1\]\.shape\[0\]'):
        F.transpose_sequence([np.zeros(2), np.zeros(3)])


def test_different_trailing_shapes_are_rejected():
    with pytest.raises(InvalidType, match=r'xs\[1\]\.shape\[1:\] == xs\[0\]\.shape\[1:\]'):
        F.transpose_sequence([np.zeros((3, 2)), np.zeros((2, 3))])


def test_zero_dimensional_sequence_is_rejected():
    with pytest.raises(ValueError, match='xs\\[0\\] must have at least one axis'):
        F.transpose_sequence([np.zeros(())])
