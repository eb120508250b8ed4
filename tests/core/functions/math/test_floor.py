"""floor: not differentiable; Chainer returns a Variable without a graph."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 2), ()],
}))
class TestFloor(testing.FunctionTestCase):

    skip_backward_test = True
    skip_double_backward_test = True

    def generate_inputs(self):
        return np.random.uniform(-5, 5, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.floor(x),

    def forward_expected(self, inputs):
        x = inputs[0].astype(np.float64)
        return np.asarray(x - np.mod(x, 1), dtype=self.dtype),


def test_known_values():
    y = F.floor(np.array([-1.5, -0.5, 0.0, 0.2, 2.0], np.float32))
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.array, [-2.0, -1.0, 0.0, 0.0, 2.0])


def test_result_has_no_graph_and_blocks_gradients():
    x = catena.Variable(np.array([-1.5, 0.3, 2.5], np.float32))
    y = F.floor(x)
    assert isinstance(y, catena.Variable)
    assert y.creator is None
    assert not y.requires_grad
    # Only the path through x * 2 carries a gradient.
    F.sum(y + x * 2).backward()
    np.testing.assert_array_equal(x.grad, [2.0, 2.0, 2.0])


def test_array_and_integer_inputs():
    y = F.floor(np.arange(-2, 3))
    assert y.dtype == np.arange(1).dtype
    np.testing.assert_array_equal(y.array, [-2, -1, 0, 1, 2])
    assert F.floor(np.float64(1.5)).array.shape == ()


def test_input_is_not_modified():
    x = np.array([-1.5, 0.5], np.float32)
    F.floor(x)
    np.testing.assert_array_equal(x, [-1.5, 0.5])


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_dtype_is_kept(dtype):
    assert F.floor(np.ones((2,), dtype)).dtype == dtype
