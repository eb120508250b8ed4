"""maxout: the maximum of each group of pool_size consecutive units along an axis."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product_dict(
    [{'shape': (2, 6), 'pool_size': 2, 'axis': 1},
     {'shape': (2, 6), 'pool_size': 3, 'axis': -1},
     {'shape': (4, 3), 'pool_size': 2, 'axis': 0},
     {'shape': (2, 6, 3), 'pool_size': 3, 'axis': 1},
     {'shape': (2, 3, 4), 'pool_size': 4, 'axis': 2},
     {'shape': (2, 4), 'pool_size': 1, 'axis': 1}],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestMaxout(testing.FunctionTestCase):

    def generate_inputs(self):
        # Distinct values, at least 0.05 apart, so that no group has a tie.
        size = int(np.prod(self.shape))
        x = np.random.permutation(size).reshape(self.shape) * 0.05 - 0.5
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.maxout(x, self.pool_size, axis=self.axis),

    def forward_expected(self, inputs):
        x, = inputs
        axis = self.axis % x.ndim
        n = x.shape[axis] // self.pool_size
        y = np.stack([np.take(x, range(k * self.pool_size, (k + 1) * self.pool_size),
                              axis=axis).max(axis=axis) for k in range(n)], axis=axis)
        return y.astype(self.dtype),


def test_default_axis_and_gradient():
    x = catena.Variable(np.array([[1.0, 5.0, 3.0, 2.0], [0.0, -1.0, -2.0, 4.0]]))
    y = F.maxout(x, 2)
    np.testing.assert_array_equal(y.array, [[5.0, 3.0], [0.0, 4.0]])
    y.grad = np.array([[1.0, 2.0], [3.0, 4.0]])
    y.backward()
    np.testing.assert_array_equal(x.grad, [[0.0, 1.0, 2.0, 0.0], [3.0, 0.0, 0.0, 4.0]])


def test_pool_size_must_divide_the_axis():
    with pytest.raises(InvalidType, match=r'x.shape\[axis\] % pool_size == 0'):
        F.maxout(np.zeros((2, 5), np.float32), 2)


@pytest.mark.parametrize('pool_size, error', [(0, ValueError), (-2, ValueError),
                                              (2.0, TypeError), (True, TypeError)])
def test_bad_pool_size(pool_size, error):
    with pytest.raises(error, match='pool_size must be'):
        F.maxout(np.zeros((2, 4), np.float32), pool_size)


@pytest.mark.parametrize('axis', [2, -3])
def test_axis_out_of_range(axis):
    with pytest.raises(ValueError, match=r'maxout: axis must be in \[-2, 2\)'):
        F.maxout(np.zeros((2, 4), np.float32), 2, axis=axis)
