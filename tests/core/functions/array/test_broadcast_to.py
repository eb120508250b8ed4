"""broadcast_to."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.array.broadcast import BroadcastTo
from catena.utils.type_check import InvalidType


def _with_dtypes(params):
    """Every case in float32; the first case also in float16 and float64."""
    first = {key: values[:1] for key, values in params.items()}
    return (testing.product({**params, 'dtype': [np.float32]})
            + testing.product({**first, 'dtype': [np.float16, np.float64]}))


@testing.parameterize(*_with_dtypes({
    'shapes': [
        ((3, 1, 2), (3, 4, 2)),
        ((2,), (3, 2)),
        ((), (2, 3)),
        ((1, 1), (1, 4)),
        ((3, 1), (2, 3, 5)),
        ((1,), (0,)),
    ],
}))
class TestBroadcastTo(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shapes[0]).astype(self.dtype),

    def forward(self, inputs, device):
        return F.broadcast_to(inputs[0], self.shapes[1]),

    def forward_expected(self, inputs):
        x, = inputs
        in_shape, out_shape = self.shapes
        # Repeat along every axis that grows, after adding leading axes.
        x = x.reshape((1,) * (len(out_shape) - len(in_shape)) + in_shape)
        for axis, size in enumerate(out_shape):
            if x.shape[axis] != size:
                x = np.repeat(x, size, axis=axis)
        return x,


def test_gradient_sums_over_the_broadcast_axes():
    x = catena.Variable(np.array([[1.0], [2.0]]))
    y = F.broadcast_to(x, (3, 2, 4))
    assert isinstance(y.creator, BroadcastTo)
    y.grad = np.ones((3, 2, 4))
    y.backward()
    np.testing.assert_array_equal(x.grad, [[12.0], [12.0]])


def test_same_shape_returns_the_input():
    x = catena.Variable(np.zeros((2, 3)))
    assert F.broadcast_to(x, (2, 3)) is x
    array = np.zeros((2, 3))
    y = F.broadcast_to(array, [2, 3])
    assert isinstance(y, catena.Variable) and y.array is array and not y.requires_grad


def test_result_is_a_view():
    x = np.arange(3.0)
    assert np.shares_memory(F.broadcast_to(x, (2, 3)).array, x)


def test_incompatible_shape_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.shape\[1\] == 1'):
        F.broadcast_to(np.zeros((2, 3)), (2, 4))


def test_fewer_dimensions_are_rejected():
    with pytest.raises(InvalidType, match=r'x\.ndim <= 1'):
        F.broadcast_to(np.zeros((2, 3)), (3,))
