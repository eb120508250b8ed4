"""swapaxes."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _with_dtypes(params):
    """Every case in float32; the first case also in float16 and float64."""
    first = {key: values[:1] for key, values in params.items()}
    return (testing.product({**params, 'dtype': [np.float32]})
            + testing.product({**first, 'dtype': [np.float16, np.float64]}))


@testing.parameterize(*_with_dtypes({
    'shape_axes': [((2, 3, 4), 0, 2), ((2, 3, 4), -1, 1), ((2, 3), 1, 1), ((4,), 0, -1)],
}))
class TestSwapaxes(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape_axes[0]).astype(self.dtype),

    def forward(self, inputs, device):
        _, a1, a2 = self.shape_axes
        return F.swapaxes(inputs[0], a1, a2),

    def forward_expected(self, inputs):
        x, = inputs
        _, a1, a2 = self.shape_axes
        axes = list(range(x.ndim))
        a1, a2 = a1 % x.ndim, a2 % x.ndim
        axes[a1], axes[a2] = axes[a2], axes[a1]
        return x.transpose(axes),


def test_values_move_with_their_indices():
    x = np.arange(24.0).reshape(2, 3, 4)
    y = F.swapaxes(x, 0, 2).array
    assert y.shape == (4, 3, 2)
    assert y[3, 1, 0] == x[0, 1, 3]


def test_axis_out_of_range_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.ndim'):
        F.swapaxes(np.zeros((2, 3)), 0, 2)
    with pytest.raises(InvalidType, match=r'x\.ndim'):
        F.swapaxes(np.zeros((2, 3)), -3, 0)


def test_non_integer_axis_is_rejected():
    with pytest.raises(TypeError, match='axis1 must be an int'):
        F.swapaxes(np.zeros((2, 3)), 0.0, 1)
