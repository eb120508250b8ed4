"""tensordot."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.math.tensordot import TensorDot
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'case': [((3, 4, 5), (4, 5, 2), 2), ((3, 4, 5), (5, 4, 2), ([1, 2], [1, 0])),
             ((3, 4), (4, 3), ([0, 1], [1, 0])), ((2, 3), (4,), 0), ((3,), (3,), 1),
             ((3, 4, 5), (2, 3, 5), ([2, 0], [2, 1])), ((3, 4), (2, 4), (1, 1)),
             ((3, 4), (4, 2), ((-1,), (0,)))],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestTensorDot(testing.FunctionTestCase):

    def setUp(self):
        self.a_shape, self.b_shape, self.axes = self.case
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 2e-2, 'rtol': 2e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, self.a_shape).astype(self.dtype),
                np.random.uniform(-1, 1, self.b_shape).astype(self.dtype))

    def forward(self, inputs, device):
        a, b = inputs
        return F.tensordot(a, b, axes=self.axes),

    def forward_expected(self, inputs):
        a, b = (x.astype(np.float64) for x in inputs)
        return np.asarray(np.tensordot(a, b, axes=self.axes), dtype=self.dtype),


def test_default_axes_is_two():
    a = np.random.uniform(-1, 1, (2, 3, 4))
    b = np.random.uniform(-1, 1, (3, 4, 5))
    np.testing.assert_allclose(F.tensordot(a, b).array, np.tensordot(a, b), rtol=1e-12)


@pytest.mark.parametrize('axes, error, match', [
    (3, ValueError, 'axes'),
    (-1, ValueError, 'axes'),
    (([0, 1], [0]), ValueError, 'as many'),
    (([2], [0]), ValueError, 'out of range'),
    (([0, 0], [0, 1]), ValueError, 'repeat'),
    ('ab', TypeError, 'axes'),
    (([0.5], [0]), TypeError, 'axes'),
])
def test_bad_axes(axes, error, match):
    with pytest.raises(error, match=match):
        F.tensordot(np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32), axes=axes)


def test_mismatched_contracted_sizes():
    with pytest.raises(ValueError, match='axis 1 of a .length 3. and axis 0 of b .length 2.'):
        F.tensordot(np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32), axes=1)
    node = TensorDot([1], [0])
    with pytest.raises(InvalidType, match='b.shape'):
        node.apply((np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32)))


@testing.parameterize(*testing.product({
    'a_dtype': [np.float16, np.float32, np.float64],
    'b_dtype': [np.float16, np.float32, np.float64],
    'case': [((3, 4, 2), (4, 2, 5), 2), ((2, 3), (2, 4), (0, 0)), ((2,), (3,), 0)],
}))
class TestTensorDotMixedDtypes(testing.FunctionTestCase):

    def setUp(self):
        self.a_shape, self.b_shape, self.axes = self.case
        if np.float16 in (self.a_dtype, self.b_dtype):
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, self.a_shape).astype(self.a_dtype),
                np.random.uniform(-1, 1, self.b_shape).astype(self.b_dtype))

    def forward(self, inputs, device):
        a, b = inputs
        return F.tensordot(a, b, axes=self.axes),

    def forward_expected(self, inputs):
        a, b = inputs
        y = np.tensordot(a.astype(np.float64), b.astype(np.float64), axes=self.axes)
        return y.astype(np.result_type(self.a_dtype, self.b_dtype)),


def test_mixed_dtypes_give_each_gradient_its_input_dtype():
    a = catena.Variable(np.random.uniform(-1, 1, (2, 3)).astype(np.float16))
    b = catena.Variable(np.random.uniform(-1, 1, (3, 4)).astype(np.float64))
    y = F.tensordot(a, b, axes=1)
    assert y.dtype == np.float64
    y.grad = np.ones((2, 4))
    y.backward()
    assert a.grad.dtype == np.float16 and b.grad.dtype == np.float64
    np.testing.assert_allclose(a.grad, np.ones((2, 4)) @ b.array.T, rtol=1e-2)
    np.testing.assert_allclose(b.grad, a.array.astype(np.float64).T @ np.ones((2, 4)))


@pytest.mark.parametrize('axes', [(), ((), (), ()), ([0],)])
def test_axes_that_are_not_a_pair_are_rejected(axes):
    with pytest.raises(ValueError, match='pair'):
        F.tensordot(np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32), axes=axes)


def test_integer_inputs_are_rejected():
    with pytest.raises(InvalidType, match='dtype.kind'):
        F.tensordot(np.zeros((2, 3), np.float32), np.zeros((3, 2), np.int32), axes=1)
