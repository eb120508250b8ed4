"""stack."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.array.stack import Stack
from catena.utils.type_check import InvalidType


def _with_dtypes(params):
    """Every case in float32; the first case also in float16 and float64."""
    first = {key: values[:1] for key, values in params.items()}
    return (testing.product({**params, 'dtype': [np.float32]})
            + testing.product({**first, 'dtype': [np.float16, np.float64]}))


@testing.parameterize(*_with_dtypes({
    'shape_axis': [((3, 4), 0), ((3, 4), 1), ((3, 4), 2), ((3, 4), -1), ((3, 4), -3),
                   ((), 0), ((2,), -2)],
    'n': [1, 3],
}))
class TestStack(testing.FunctionTestCase):

    def generate_inputs(self):
        shape, _ = self.shape_axis
        return tuple(np.random.uniform(-1, 1, shape).astype(self.dtype)
                     for _ in range(self.n))

    def forward(self, inputs, device):
        return F.stack(list(inputs), axis=self.shape_axis[1]),

    def forward_expected(self, inputs):
        shape, axis = self.shape_axis
        axis = axis % (len(shape) + 1)
        expanded = [x.reshape(x.shape[:axis] + (1,) + x.shape[axis:]) for x in inputs]
        return np.concatenate(expanded, axis=axis),


def test_is_its_own_node():
    y = F.stack([catena.Variable(np.zeros(2)), np.ones(2)])
    assert isinstance(y.creator, Stack)
    np.testing.assert_array_equal(y.array, [[0, 0], [1, 1]])


def test_gradient_reaches_only_the_variables():
    x = catena.Variable(np.array([1.0, 2.0]))
    y = F.stack([x, np.array([3.0, 4.0])], axis=1)
    y.grad = np.array([[1.0, 2.0], [3.0, 4.0]])
    y.backward()
    np.testing.assert_array_equal(x.grad, [1.0, 3.0])


def test_shape_mismatch_is_rejected():
    with pytest.raises(InvalidType, match=r'xs\[1\]\.shape == xs\[0\]\.shape'):
        F.stack([np.zeros(2), np.zeros(3)])


def test_dtype_mismatch_is_rejected():
    with pytest.raises(InvalidType, match=r'xs\[1\]\.dtype == xs\[0\]\.dtype'):
        F.stack([np.zeros(2, np.float32), np.zeros(2, np.float64)])


@pytest.mark.parametrize('axis', [3, -4])
def test_axis_out_of_range_is_rejected(axis):
    with pytest.raises(InvalidType, match=r'xs\[0\]\.ndim'):
        F.stack([np.zeros((2, 3)), np.zeros((2, 3))], axis=axis)


def test_empty_list_is_rejected():
    with pytest.raises(InvalidType, match=r'in_types\.size\(\) > 0'):
        F.stack([])
