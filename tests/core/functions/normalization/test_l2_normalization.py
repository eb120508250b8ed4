"""normalize (L2 normalization)."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*(
    testing.product({
        'shape_axis': [((4, 3), 1), ((4, 3), 0), ((2, 3, 4), (1, 2)), ((2, 3, 4), -1),
                       ((5,), 0), ((), ())],
        'dtype': [np.float16, np.float32, np.float64],
        'eps': [1e-5],
        'zero_vector': [False],
    })
    + testing.product({
        'shape_axis': [((4, 3), 1), ((2, 3, 4), (1, 2))],
        'dtype': [np.float16, np.float64],
        'eps': [1e-5, 1.0],
        'zero_vector': [True],
    })
    + [{'shape_axis': ((4, 3), 1), 'dtype': np.float64, 'eps': 1.0, 'zero_vector': False}]
))
class TestNormalize(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-3, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
        elif self.dtype == np.float32:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-2}
            self.check_double_backward_options = {'atol': 1e-2, 'rtol': 1e-2}
        if self.zero_vector:
            # The norm is not smooth at a zero vector, so central differences are off
            # by O(step) there; test_zero_vector_gradients checks the values instead.
            self.skip_backward_test = self.skip_double_backward_test = True

    def generate_inputs(self):
        shape, _ = self.shape_axis
        x = np.random.uniform(-1, 1, shape).astype(self.dtype)
        if self.zero_vector:
            x[0] = 0
        return x,

    def forward(self, inputs, device):
        return F.normalize(inputs[0], eps=self.eps, axis=self.shape_axis[1]),

    def forward_expected(self, inputs):
        x = inputs[0].astype(np.float64)
        axis = self.shape_axis[1]
        norm = np.sqrt((x * x).sum(axis=axis, keepdims=True))
        return (x / (norm + self.eps)).astype(self.dtype),


def test_zero_vector_gradients():
    x = catena.Variable(np.array([[0.0, 0.0], [3.0, 4.0]]))
    y = F.normalize(x)
    gx, = catena.grad([F.sum(y * np.array([[1.0, 2.0], [1.0, 1.0]]))], [x],
                      enable_double_backprop=True)
    np.testing.assert_allclose(gx.array[0], [1e5, 2e5])
    F.sum(gx * gx).backward()
    assert np.isfinite(x.grad).all()


def test_float16_squares_do_not_overflow():
    x = np.full((1, 4), 1000, np.float16)  # 1000 ** 2 overflows float16
    y = F.normalize(x)
    assert y.dtype == np.float16
    np.testing.assert_allclose(y.array.astype(np.float64), 0.5, rtol=1e-3)


def test_bad_arguments():
    with pytest.raises(InvalidType, match=r'x\.ndim > 2'):
        F.normalize(np.zeros((2, 3)), axis=2)
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        F.normalize(np.zeros((2, 3), np.int32))
    with pytest.raises(TypeError, match='axis must be an int or a tuple of ints'):
        F.normalize(np.zeros((2, 3)), axis=None)
