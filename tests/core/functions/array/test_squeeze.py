"""squeeze."""

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
    'shape_axis': [
        ((1, 3, 1, 2), None),
        ((1, 3, 1, 2), 0),
        ((1, 3, 1, 2), -2),
        ((1, 3, 1, 2), (0, 2)),
        ((1,), None),
        ((2, 3), ()),
    ],
}))
class TestSqueeze(testing.FunctionTestCase):

    def before_test(self, test_name):
        # When nothing is squeezed the gradient is the output gradient itself, and
        # catena.grad drops the seed of an output that is also a leaf input; a
        # product with one puts a node between them without changing the math.
        self.through_node = test_name == 'test_double_backward'

    def generate_inputs(self):
        shape, _ = self.shape_axis
        return np.random.uniform(-1, 1, shape).astype(self.dtype),

    def forward(self, inputs, device):
        y = F.squeeze(inputs[0], axis=self.shape_axis[1])
        return (y * 1 if self.through_node else y),

    def forward_expected(self, inputs):
        x, = inputs
        shape, axis = self.shape_axis
        if axis is None:
            new_shape = tuple(d for d in shape if d != 1)
        else:
            axes = {a % len(shape) for a in ((axis,) if isinstance(axis, int) else axis)}
            new_shape = tuple(d for i, d in enumerate(shape) if i not in axes)
        return x.reshape(new_shape),


def test_result_is_a_view():
    x = np.zeros((1, 3, 1))
    y = F.squeeze(x)
    assert y.shape == (3,)
    assert np.shares_memory(y.array, x)


def test_axis_of_length_other_than_one_is_rejected():
    with pytest.raises(ValueError, match='axis 1 has length 3, not 1'):
        F.squeeze(np.zeros((1, 3)), axis=1)


def test_axis_out_of_range_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.ndim'):
        F.squeeze(np.zeros((1, 3)), axis=2)
    with pytest.raises(InvalidType, match=r'x\.ndim'):
        F.squeeze(np.zeros((1, 3)), axis=-3)


def test_axis_of_wrong_type_is_rejected():
    with pytest.raises(TypeError, match='axis must be'):
        F.squeeze(np.zeros((1, 3)), axis=1.0)
