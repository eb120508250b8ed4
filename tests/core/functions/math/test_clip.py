"""clip: gradient 1 inside [x_min, x_max] (edges included), 0 outside."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'bounds': [(-0.5, 0.5), (None, 0.3), (-0.3, None), (-2.0, 2.0)],
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 4), ()],
}))
class TestClip(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape)
        # Stay away from the kinks at the bounds.
        for bound in self.bounds:
            if bound is not None:
                near = np.abs(x - bound) < 0.05
                x = np.where(near, x + 0.1, x)
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.clip(x, *self.bounds),

    def forward_expected(self, inputs):
        x, = inputs
        x_min, x_max = self.bounds
        y = x.astype(np.float64)
        if x_min is not None:
            y = np.where(y < x_min, x_min, y)
        if x_max is not None:
            y = np.where(y > x_max, x_max, y)
        return np.asarray(y, dtype=self.dtype),


def test_gradient_is_one_at_the_edges_and_zero_outside():
    x = catena.Variable(np.array([-0.5, 0.5, 0.0, 1.0, -1.0], np.float32))
    y = F.clip(x, -0.5, 0.5)
    np.testing.assert_array_equal(y.array, [-0.5, 0.5, 0.0, 0.5, -0.5])
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, [1.0, 1.0, 1.0, 0.0, 0.0])


def test_one_sided_bounds():
    x = catena.Variable(np.array([-2.0, 0.0, 2.0]))
    y = F.clip(x, None, 1.0)
    np.testing.assert_array_equal(y.array, [-2.0, 0.0, 1.0])
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, [1.0, 1.0, 0.0])
    x.cleargrad()
    y = F.clip(x, -1.0, None)
    np.testing.assert_array_equal(y.array, [-1.0, 0.0, 2.0])
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, [0.0, 1.0, 1.0])


@pytest.mark.parametrize('bound', [np.float64(0.25), 0.25, 1])
def test_dtype_is_kept_whatever_the_bound_type(bound):
    y = F.clip(np.array([-1.0, 0.0, 2.0], np.float16), -bound, bound)
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y.array, np.array([-bound, 0.0, bound], np.float16))


def test_bad_bounds_raise_value_error():
    x = np.zeros(3, np.float32)
    with pytest.raises(ValueError, match='both are None'):
        F.clip(x, None, None)
    with pytest.raises(ValueError, match='x_min must be less than x_max'):
        F.clip(x, 1.0, -1.0)
    # Chainer v7 rejects an empty interval too.
    with pytest.raises(ValueError, match='x_min=0.5, x_max=0.5'):
        F.clip(x, 0.5, 0.5)
    with pytest.raises(TypeError, match='x_max must be a real number or None'):
        F.clip(x, 0.0, np.ones(3))


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        F.clip(np.arange(3), 0.0, 1.0)
