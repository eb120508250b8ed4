"""maximum and minimum: the gradient goes to the selected input."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

SELECT = {'maximum': np.greater, 'minimum': np.less}


@testing.parameterize(*testing.product({
    'name': ['maximum', 'minimum'],
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 2), ()],
}))
class TestMaximumMinimum(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def generate_inputs(self):
        x1 = np.random.uniform(-1, 1, self.shape)
        x2 = np.random.uniform(-1, 1, self.shape)
        # Keep away from ties, where the function has a kink.
        x2 = np.where(np.abs(x1 - x2) < 0.1, x2 + 0.3, x2)
        return x1.astype(self.dtype), x2.astype(self.dtype)

    def forward(self, inputs, device):
        x1, x2 = inputs
        return getattr(F, self.name)(x1, x2),

    def forward_expected(self, inputs):
        x1, x2 = inputs
        return np.asarray(np.where(SELECT[self.name](x1, x2), x1, x2), dtype=self.dtype),


@pytest.mark.parametrize(('name', 'expected', 'to_x1'), [
    ('maximum', [2.0, 5.0, 1.0], [0.0, 1.0, 1.0]),
    ('minimum', [-1.0, 3.0, 1.0], [1.0, 0.0, 1.0]),
])
def test_gradient_goes_to_the_selected_input_and_ties_to_x1(name, expected, to_x1):
    x1 = catena.Variable(np.array([-1.0, 5.0, 1.0]))
    x2 = catena.Variable(np.array([2.0, 3.0, 1.0]))
    y = getattr(F, name)(x1, x2)
    np.testing.assert_array_equal(y.array, expected)
    y.grad = np.array([10.0, 20.0, 30.0])
    y.backward()
    np.testing.assert_array_equal(x1.grad, np.multiply(to_x1, [10.0, 20.0, 30.0]))
    np.testing.assert_array_equal(x2.grad, np.multiply(np.subtract(1, to_x1),
                                                       [10.0, 20.0, 30.0]))


@pytest.mark.parametrize('name', ['maximum', 'minimum'])
def test_double_backprop_through_one_input_gradient(name):
    # Only x1's gradient is differentiated again: the grad node gets one None.
    x1 = catena.Variable(np.array([-1.0, 5.0]))
    x2 = catena.Variable(np.array([2.0, 3.0]))
    gy = catena.Variable(np.array([1.0, 1.0]))
    y = getattr(F, name)(x1, x2)
    gx1, = catena.grad([y], [x1], [gy], enable_double_backprop=True)
    w = np.array([7.0, 11.0])
    F.sum(gx1 * w).backward()
    selected = SELECT[name](x1.array, x2.array)
    np.testing.assert_array_equal(gy.grad, np.where(selected, w, 0.0))


@pytest.mark.parametrize('name', ['maximum', 'minimum'])
def test_bad_arguments_are_rejected(name):
    function = getattr(F, name)
    x1 = np.zeros((3, 2), np.float32)
    with pytest.raises(InvalidType, match=r'broadcast'):
        function(x1, np.zeros((3,), np.float32))
    with pytest.raises(InvalidType, match=r'x2\.dtype == x1\.dtype'):
        function(x1, np.zeros((3, 2), np.float64))
    with pytest.raises(InvalidType, match=r'x1\.dtype\.kind == f'):
        function(np.arange(3), np.arange(3))
