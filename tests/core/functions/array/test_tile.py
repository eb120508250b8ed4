"""tile."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing


def _with_dtypes(params):
    """Every case in float32; the first case also in float16 and float64."""
    first = {key: values[:1] for key, values in params.items()}
    return (testing.product({**params, 'dtype': [np.float32]})
            + testing.product({**first, 'dtype': [np.float16, np.float64]}))


@testing.parameterize(*_with_dtypes({
    'shape_reps': [
        ((3,), 2),
        ((2, 3), (2, 1)),
        ((2, 3), 3),            # reps shorter than ndim
        ((3,), (2, 1, 2)),      # reps longer than ndim
        ((2, 1, 3), (1, 3, 2)),
        ((2, 3), (0, 2)),       # an empty result
        ((), 3),
    ],
}))
class TestTile(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape_reps[0]).astype(self.dtype),

    def forward(self, inputs, device):
        return F.tile(inputs[0], self.shape_reps[1]),

    def forward_expected(self, inputs):
        x, = inputs
        reps = self.shape_reps[1]
        reps = (reps,) if isinstance(reps, int) else reps
        ndim = max(x.ndim, len(reps))
        x = x.reshape((1,) * (ndim - x.ndim) + x.shape)
        reps = (1,) * (ndim - len(reps)) + tuple(reps)
        out = x
        for axis, r in enumerate(reps):
            out = np.concatenate([out] * r, axis=axis) if r else out.take([], axis=axis)
        return out,


def test_gradient_sums_the_copies():
    x = catena.Variable(np.array([1.0, 2.0]))
    y = F.tile(x, (2, 3))
    y.grad = np.arange(12.0).reshape(2, 6)
    y.backward()
    # x[0] appears at columns 0, 2, 4 of both rows.
    np.testing.assert_allclose(x.grad, [0 + 2 + 4 + 6 + 8 + 10, 1 + 3 + 5 + 7 + 9 + 11])


def test_integer_input_tiles():
    assert F.tile(np.arange(3), 2).array.tolist() == [0, 1, 2, 0, 1, 2]


@pytest.mark.parametrize('reps', [-1, (2, -1)])
def test_negative_reps_are_rejected(reps):
    with pytest.raises(ValueError, match='reps must not contain negative'):
        F.tile(np.zeros(3), reps)


@pytest.mark.parametrize('reps', [1.5, (2, 'a'), None])
def test_reps_of_wrong_type_are_rejected(reps):
    with pytest.raises(TypeError, match='reps must be an int or a tuple of ints'):
        F.tile(np.zeros(3), reps)
