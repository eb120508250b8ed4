"""prod, with its gradient exact at zeros too."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'shape_axis': [((3, 4), None), ((3, 4), 0), ((2, 3, 4), (0, 2)), ((2, 3, 4), -1),
                   ((5,), 0), ((), None)],
    'keepdims': [False],
    'dtype': [np.float16, np.float32, np.float64],
}), *testing.product({
    # Empty inputs: the product over nothing is one, and the gradient is empty.
    'shape_axis': [((3, 1, 0), 0), ((3, 1, 0), 1), ((3, 1, 0), (0, 1)), ((3, 0), 1),
                   ((0,), None)],
    'keepdims': [False, True],
    'dtype': [np.float16, np.float32, np.float64],
}), *testing.product({
    'shape_axis': [((3, 4), None), ((2, 3, 4), (0, 2))],
    'keepdims': [True],
    'dtype': [np.float32],
}))
class TestProd(testing.FunctionTestCase):

    def setUp(self):
        self.shape, self.axis = self.shape_axis
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}
        if self.shape == ():
            # The gradient is gy itself: catena.gradient_check's double backward
            # cannot check a first-order gradient that is one of its inputs.
            self.skip_double_backward_test = True

    def generate_inputs(self):
        x = np.random.uniform(0.5, 1.5, self.shape) * np.random.choice([-1, 1], self.shape)
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        return F.prod(inputs[0], axis=self.axis, keepdims=self.keepdims),

    def forward_expected(self, inputs):
        y = np.prod(inputs[0].astype(np.float64), axis=self.axis, keepdims=self.keepdims)
        return np.asarray(y, dtype=self.dtype),


@testing.parameterize(*testing.product({'axis': [None, 1], 'n_zeros': [1, 2]}))
class TestProdWithZeros(testing.FunctionTestCase):
    dtype = np.float64

    def generate_inputs(self):
        x = np.random.uniform(0.5, 1.5, (3, 4))
        x[0, 1] = 0
        if self.n_zeros == 2:
            x[0, 3] = 0
        return x,

    def forward(self, inputs, device):
        return F.prod(inputs[0], axis=self.axis),

    def forward_expected(self, inputs):
        return np.asarray(np.prod(inputs[0], axis=self.axis)),


def test_gradient_at_one_zero_is_the_product_of_the_others():
    x = catena.Variable(np.array([2.0, 0.0, 3.0], np.float32))
    F.prod(x).backward()
    np.testing.assert_array_equal(x.grad, [0.0, 6.0, 0.0])


def test_bad_axis():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(InvalidType, match='axis'):
        F.prod(x, axis=2)
    with pytest.raises(ValueError, match='axis'):
        F.prod(x, axis=(1, -1 + 2))
    with pytest.raises(TypeError, match='axis'):
        F.prod(x, axis=[0])
