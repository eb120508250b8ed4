"""add(*xs): two operands, a constant, and many operands at once."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.math.basic_math import Add, AddConstant, MultiAdd
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'shapes': [[(3, 2)], [(3, 2), (3, 2)], [(3, 2), (2,)], [(3, 2), (3, 2), (3, 2)],
               [(3, 1), (2,), (3, 2), ()], [(2,), (3, 2), (1, 2), (3, 1)]],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestAdd(testing.FunctionTestCase):

    def setUp(self):
        broadcast = np.broadcast_shapes(*self.shapes)
        if any(shape == broadcast for shape in self.shapes):
            # The gradient of such an input is gy itself, and check_double_backward
            # cannot check a first-order gradient that is one of its own inputs
            # (catena.gradient_check drops the gradient of a leaf output).
            self.skip_double_backward_test = True

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, shape).astype(self.dtype)
                     for shape in self.shapes)

    def forward(self, inputs, device):
        return F.add(*inputs),

    def forward_expected(self, inputs):
        total = inputs[0].astype(np.float64)
        for x in inputs[1:]:
            total = total + x
        return np.asarray(total, dtype=self.dtype),


def test_nodes():
    x = catena.Variable(np.ones((2,), np.float32))
    assert type(F.add(x, x).creator) is Add
    assert type(F.add(x, 2).creator) is AddConstant
    assert type(F.add(x, x, x).creator) is MultiAdd
    np.testing.assert_array_equal(F.add(x, 2).array, [3, 3])
    assert F.add(x, 2).dtype == np.float32


def test_single_input_is_a_copy():
    x = np.ones((2,), np.float32)
    y = F.add(x)
    assert y.array is not x
    np.testing.assert_array_equal(y.array, x)


def test_no_inputs():
    with pytest.raises(ValueError, match='at least one'):
        F.add()


def test_mismatched_inputs():
    a = np.ones((2, 3), np.float32)
    with pytest.raises(InvalidType, match='broadcastable'):
        F.add(a, a, np.ones((4,), np.float32))
    with pytest.raises(InvalidType, match='x1.dtype'):
        F.add(a, np.ones((2, 3), np.float64), a)
