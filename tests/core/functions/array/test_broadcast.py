"""broadcast: several variables broadcast against each other."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils import type_check


@testing.parameterize(*testing.product({
    'shapes': [[(3, 1, 2), (4, 1)], [(2, 3), (2, 3)], [(), (2, 1), (3,)], [(1,), (5, 1, 1)]],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestBroadcast(testing.FunctionTestCase):

    def before_test(self, test_name):
        out_shape = np.broadcast_shapes(*self.shapes)
        # An input of the output's shape gets the output gradient itself as its
        # gradient (sum_to is then the identity, as in Chainer), and
        # gradient_check cannot differentiate a function that returns its input.
        self.skip_double_backward_test = any(s == out_shape for s in self.shapes)

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, shape).astype(self.dtype)
                     for shape in self.shapes)

    def forward(self, inputs, device):
        return F.broadcast(*inputs)

    def forward_expected(self, inputs):
        return tuple(np.array(y) for y in np.broadcast_arrays(*inputs))


def test_single_argument_returns_a_variable():
    x = np.zeros((2, 3), np.float32)
    y = F.broadcast(x)
    assert isinstance(y, catena.Variable) and y.array is x
    v = catena.Variable(x)
    assert F.broadcast(v) is v


def test_mixed_dtypes_keep_their_dtypes():
    a, b = F.broadcast(np.zeros((2, 1), np.float32), np.zeros(3, np.float64))
    assert (a.dtype, b.dtype) == (np.float32, np.float64)
    assert a.shape == b.shape == (2, 3)


def test_incompatible_shapes():
    with pytest.raises(type_check.InvalidType, match=r'args\[0\]\.shape'):
        F.broadcast(np.zeros((2, 3), np.float32), np.zeros((4,), np.float32))


def test_no_arguments():
    with pytest.raises(type_check.InvalidType, match='size'):
        F.broadcast()
