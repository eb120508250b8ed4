"""sign: not differentiable; Chainer returns a Variable without a graph."""

# ruff: noqa: NPY002

import numpy as np

import catena
import catena.functions as F
from catena import testing


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 2), ()],
}))
class TestSign(testing.FunctionTestCase):

    skip_backward_test = True
    skip_double_backward_test = True

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape)
        if x.ndim:
            x[0, 0] = 0.0  # the sign of zero is zero
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.sign(x),

    def forward_expected(self, inputs):
        x, = inputs
        return ((x > 0).astype(self.dtype) - (x < 0).astype(self.dtype)).astype(self.dtype),


def test_known_values():
    y = F.sign(np.array([-3.0, -0.0, 0.0, 0.5, np.inf], np.float32))
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.array, [-1.0, 0.0, 0.0, 1.0, 1.0])
    assert np.isnan(F.sign(np.array([np.nan])).array[0])


def test_result_has_no_graph_and_blocks_gradients():
    x = catena.Variable(np.array([-1.5, 0.3, 2.5], np.float32))
    y = F.sign(x)
    assert isinstance(y, catena.Variable)
    assert y.creator is None and not y.requires_grad
    F.sum(y * x).backward()  # d(sign(x) * x)/dx with sign(x) a constant
    np.testing.assert_array_equal(x.grad, [-1.0, 1.0, 1.0])


def test_integer_input_keeps_dtype():
    y = F.sign(np.array([-4, 0, 7]))
    assert y.dtype == np.array([0]).dtype
    np.testing.assert_array_equal(y.array, [-1, 0, 1])
    assert F.sign(np.float32(-2.0)).array.shape == ()
