"""separate."""

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
    'shape_axis': [((2, 3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), -1), ((3,), 0), ((1, 2), 0)],
}))
class TestSeparate(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape_axis[0]).astype(self.dtype),

    def forward(self, inputs, device):
        return F.separate(inputs[0], axis=self.shape_axis[1])

    def forward_expected(self, inputs):
        x, = inputs
        axis = self.shape_axis[1] % x.ndim
        moved = np.moveaxis(x, axis, 0)
        return tuple(np.ascontiguousarray(moved[i]).reshape(moved.shape[1:])
                     for i in range(moved.shape[0]))


def test_outputs_are_views():
    x = np.arange(6.0).reshape(2, 3)
    ys = F.separate(x, axis=1)
    assert len(ys) == 3
    for y in ys:
        assert np.shares_memory(y.array, x)
    # 0-d pieces stay arrays.
    assert all(isinstance(y.array, np.ndarray) for y in F.separate(np.arange(3.0)))


def test_unused_outputs_get_zero_gradient():
    x = catena.Variable(np.arange(6.0).reshape(2, 3))
    ys = F.separate(x, axis=0)
    F.sum(ys[1] * ys[1]).backward()
    np.testing.assert_array_equal(x.grad, [[0, 0, 0], [6, 8, 10]])


def test_inverse_of_stack():
    x = np.random.rand(2, 3, 4)
    for axis in range(3):
        np.testing.assert_array_equal(F.stack(F.separate(x, axis), axis).array, x)


def test_axis_out_of_range_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.ndim'):
        F.separate(np.zeros((2, 3)), axis=2)


def test_zero_dimensional_input_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.ndim'):
        F.separate(np.zeros(()))
