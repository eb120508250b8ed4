"""transpose."""

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
    'shape_axes': [
        ((2, 3), None),
        ((2, 3, 4), None),
        ((2, 3, 4), (1, 2, 0)),
        ((2, 3, 4), (-1, 0, -2)),
        ((2, 3, 4, 5), (2, 0, 3, 1)),
        ((3,), (0,)),
        ((), None),
    ],
}))
class TestTranspose(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape_axes[0]).astype(self.dtype),

    def forward(self, inputs, device):
        return F.transpose(inputs[0], self.shape_axes[1]),

    def forward_expected(self, inputs):
        x, = inputs
        axes = self.shape_axes[1]
        axes = tuple(reversed(range(x.ndim))) if axes is None else [a % x.ndim for a in axes]
        out_shape = tuple(x.shape[a] for a in axes)
        y = np.empty(out_shape, dtype=x.dtype)
        for index in np.ndindex(*out_shape):
            source = [0] * x.ndim
            for position, axis in enumerate(axes):
                source[axis] = index[position]
            y[index] = x[tuple(source)]
        return y,


def test_gradient_is_transposed_back():
    x = catena.Variable(np.zeros((2, 3, 4)))
    y = F.transpose(x, (2, 0, 1))
    assert y.shape == (4, 2, 3)
    gy = np.arange(24.0).reshape(4, 2, 3)
    y.grad = gy
    y.backward()  # consumes y.grad, as in Chainer
    np.testing.assert_array_equal(x.grad, gy.transpose(1, 2, 0))


def test_result_is_a_view():
    x = np.arange(6.0).reshape(2, 3)
    assert np.shares_memory(F.transpose(x).array, x)


def test_wrong_number_of_axes_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.ndim == 3'):
        F.transpose(np.zeros((2, 3)), (0, 1, 2))
