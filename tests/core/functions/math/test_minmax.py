"""max, min, argmax and argmin."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _distinct(shape, dtype):
    """Values without ties, spaced far enough apart for numerical gradients."""
    size = int(np.prod(shape))
    values = np.random.permutation(size).astype(np.float64) * 0.1 - size * 0.05
    return values.reshape(shape).astype(dtype)


_SHAPE_AXIS = [((3, 2, 4), None), ((3, 2, 4), 0), ((3, 2, 4), -1), ((3, 2, 4), (0, 2)),
               ((3, 2, 4), (-1, 1)), ((5,), 0), ((), None)]


@testing.parameterize(*testing.product({
    'function': ['max', 'min'],
    'dtype': [np.float16, np.float32, np.float64],
    'shape_axis': _SHAPE_AXIS,
    'keepdims': [False],
}), *testing.product({
    'function': ['max', 'min'],
    'dtype': [np.float32],
    'shape_axis': _SHAPE_AXIS[:4],
    'keepdims': [True],
}))
class TestMinMax(testing.FunctionTestCase):

    def setUp(self):
        self.shape, self.axis = self.shape_axis
        if self.dtype == np.float16:
            self.check_backward_options = {'eps': 1e-2}
            self.check_double_backward_options = {'eps': 1e-2}

    def generate_inputs(self):
        return _distinct(self.shape, self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return getattr(F, self.function)(x, axis=self.axis, keepdims=self.keepdims),

    def forward_expected(self, inputs):
        x, = inputs
        reduce = np.amax if self.function == 'max' else np.amin
        return np.asarray(reduce(x, axis=self.axis, keepdims=self.keepdims)),


@testing.parameterize(*testing.product({
    'function': ['argmax', 'argmin'],
    'dtype': [np.float16, np.float32, np.float64],
    'shape_axis': [((3, 2, 4), None), ((3, 2, 4), 1), ((3, 2, 4), -1), ((), None)],
}))
class TestArgMinMax(testing.FunctionTestCase):
    skip_backward_test = True
    skip_double_backward_test = True

    def setUp(self):
        self.shape, self.axis = self.shape_axis

    def generate_inputs(self):
        return _distinct(self.shape, self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return getattr(F, self.function)(x, axis=self.axis),

    def forward_expected(self, inputs):
        x, = inputs
        select = np.argmax if self.function == 'argmax' else np.argmin
        return np.asarray(select(x, axis=self.axis), dtype=np.int32),


@pytest.mark.parametrize('function', [F.max, F.min])
def test_ties_all_get_the_gradient(function):
    x = catena.Variable(np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.5]], dtype=np.float32))
    if function is F.min:
        x = catena.Variable(-x.array)
    y = function(x, axis=1)
    y.grad = np.array([1.0, 2.0], dtype=np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, np.array([[0, 1, 1], [2, 2, 0]], dtype=np.float32))


def test_argmax_has_no_gradient():
    x = catena.Variable(np.array([1.0, 3.0, 2.0], dtype=np.float32))
    y = F.argmax(x)
    assert y.dtype == np.int32 and int(y.array) == 1
    assert y.creator.backward((0,), (None,)) == (None,)


@pytest.mark.parametrize('function', [F.max, F.min, F.argmax, F.argmin])
@pytest.mark.parametrize('axis', [2, -3])
def test_axis_out_of_range(function, axis):
    x = np.zeros((2, 3), dtype=np.float32)
    with pytest.raises(InvalidType, match='axis'):
        function(x, axis=axis)


@pytest.mark.parametrize('function', [F.max, F.min])
def test_bad_axis_arguments(function):
    x = np.zeros((2, 3), dtype=np.float32)
    with pytest.raises(ValueError, match='axis'):
        function(x, axis=(0, 0))
    with pytest.raises(TypeError, match='axis'):
        function(x, axis=1.5)
    with pytest.raises(TypeError, match='axis'):
        function(x, axis=[0])


@pytest.mark.parametrize('function', [F.argmax, F.argmin])
def test_argminmax_takes_no_tuple(function):
    with pytest.raises(TypeError, match='axis'):
        function(np.zeros((2, 3), dtype=np.float32), axis=(0, 1))


@pytest.mark.parametrize('function', [F.max, F.min, F.argmax, F.argmin])
def test_integer_input_is_rejected(function):
    with pytest.raises(InvalidType):
        function(np.zeros((2, 3), dtype=np.int32))
