"""cast: dtype conversion with the gradient cast back."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing

FLOATS = [np.float16, np.float32, np.float64]


@testing.parameterize(*testing.product({
    'in_type': FLOATS,
    'out_type': FLOATS,
    'shape': [(3, 2), ()],
}))
class TestCast(testing.FunctionTestCase):

    def before_test(self, test_name):
        if np.float16 in (self.in_type, self.out_type):
            # cast is linear: a coarse step dodges float16 rounding in the differences.
            self.check_backward_options.update(eps=2.0 ** -3, atol=1e-2, rtol=1e-2)
            self.check_double_backward_options.update(eps=2.0 ** -3, atol=1e-2, rtol=1e-2)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.in_type),

    def forward(self, inputs, device):
        x, = inputs
        return F.cast(x, self.out_type),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(x.astype(self.out_type)),


def test_same_dtype_shares_the_array():
    x = np.arange(3, dtype=np.float32)
    y = F.cast(x, 'float32')
    assert y.array is x
    v = catena.Variable(x)
    y = F.cast(v, np.float32)
    assert y is not v and y.array is x and y.creator is not None
    with catena.no_backprop_mode():
        assert F.cast(v, np.float32) is v


def test_type_codes_and_dtypes():
    x = np.arange(3, dtype=np.float64)
    assert F.cast(x, 'f').dtype == np.float32
    assert F.cast(x, np.dtype('float16')).dtype == np.float16
    assert F.cast(x, np.int32).dtype == np.int32


def test_gradient_is_cast_back():
    x = catena.Variable(np.array([1.5, -2.0], dtype=np.float16))
    y = F.cast(x, np.float64)
    y.grad = np.array([0.25, 2.0])
    y.backward()
    assert x.grad.dtype == np.float16
    np.testing.assert_array_equal(x.grad, [0.25, 2.0])


def test_integer_input_gets_no_gradient():
    x = catena.Variable(np.array([1, 2], dtype=np.int32))
    y = F.cast(x, np.float32)
    y.grad = np.ones(2, np.float32)
    y.backward()
    assert x.grad is None


def test_bad_type():
    with pytest.raises(TypeError, match='typ must be'):
        F.cast(np.zeros(2, np.float32), 'no-such-type')
