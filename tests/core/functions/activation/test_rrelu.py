"""rrelu: x for x >= 0, r * x below, r ~ U(l, u) in training and (l + u) / 2 in test mode."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import backend, testing
from catena.utils.type_check import InvalidType


def _leaky(x, r):
    x = x.astype(np.float64)
    return np.where(x >= 0, x, r * x)


@testing.parameterize(*(testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 4)],
    'bounds': [(1 / 8, 1 / 3), (0.0, 0.9)],
    'train': [True, False],
}) + testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [()],
    'bounds': [(1 / 8, 1 / 3)],
    'train': [True],
})))
class TestRReLU(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def before_test(self, test_name):
        # In training mode, fixed slopes make the function deterministic for the check.
        lower, upper = self.bounds
        self.r = np.random.uniform(lower, upper, self.shape).astype(self.dtype)

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape)
        x[np.abs(x) < 0.1] = -0.5
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        lower, upper = self.bounds
        # The numerical gradient runs in float64: r follows the dtype of x.
        r = device.send_array(self.r.astype(x.dtype))
        with catena.using_config('train', self.train):
            return F.rrelu(x, lower, upper, r=r),

    def forward_expected(self, inputs):
        x, = inputs
        lower, upper = self.bounds
        r = self.r if self.train else np.asarray((lower + upper) / 2, self.dtype)
        return np.asarray(_leaky(x, r.astype(np.float64)), dtype=self.dtype),


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_random_slopes_in_training_are_reproducible_under_a_seed(dtype):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (50, 40)).astype(dtype)
    np.random.seed(7)
    y1, r1 = F.rrelu(x, l=0.1, u=0.3, return_r=True)
    np.random.seed(7)
    y2, r2 = F.rrelu(x, l=0.1, u=0.3, return_r=True)
    np.testing.assert_array_equal(r1, r2)
    np.testing.assert_array_equal(y1.array, y2.array)
    y3, r3 = F.rrelu(x, l=0.1, u=0.3, return_r=True)
    assert not np.array_equal(r1, r3)
    assert r1.dtype == dtype and r1.shape == x.shape
    assert r1.min() >= dtype(0.1) and r1.max() <= dtype(0.3)
    assert r1.std() > 0.04  # spread over the interval, not a constant
    np.testing.assert_allclose(y1.array, _leaky(x, r1.astype(np.float64)),
                               **testing.tolerances(dtype))


def test_default_bounds():
    np.random.seed(0)
    _, r = F.rrelu(np.zeros((100, 100), np.float32), return_r=True)
    assert 1 / 8 <= r.min() < 0.13 and 0.33 < r.max() <= 1 / 3


def test_test_mode_uses_the_midpoint_and_ignores_r():
    x = np.array([-2.0, 1.0], np.float32)
    with catena.using_config('train', False):
        y, r = F.rrelu(x, l=0.1, u=0.3, r=np.full(2, 0.9, np.float32), return_r=True)
    np.testing.assert_allclose(r, [0.2, 0.2])
    np.testing.assert_allclose(y.array, [-0.4, 1.0])


def test_given_r_is_used_in_training_and_gradients():
    x = catena.Variable(np.array([-2.0, 1.0, -1.0]))
    r = np.array([0.5, 0.6, 0.7])
    y, r_used = F.rrelu(x, r=r, return_r=True)
    assert r_used is r
    np.testing.assert_allclose(y.array, [-1.0, 1.0, -0.7])
    assert type(y.creator_node).__name__ == 'RReLU'
    y.grad = np.ones(3)
    y.backward()
    np.testing.assert_allclose(x.grad, [0.5, 1.0, 0.7])


def test_returns_only_the_output_by_default():
    assert isinstance(F.rrelu(np.zeros(2, np.float32)), catena.Variable)


def test_r_lives_on_the_device_of_x():
    device = backend.get_device('@fake')
    x = device.send_array(np.array([-1.0, 1.0], np.float32))
    _, r = F.rrelu(x, return_r=True)
    assert backend.get_device_from_array(r) == device


@pytest.mark.parametrize('kwargs, match', [
    ({'l': -0.1}, 'l must be in'), ({'u': 1.0}, 'u must be in'),
    ({'l': 0.3, 'u': 0.2}, 'l must be less than u'), ({'l': '0.1'}, 'l must be a real'),
])
def test_bad_bounds(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        F.rrelu(np.zeros(3, np.float32), **kwargs)


def test_bad_r():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(InvalidType, match=r'r.shape == x.shape'):
        F.rrelu(x, r=np.zeros(3, np.float32))
    with pytest.raises(InvalidType, match=r'r.dtype == x.dtype'):
        F.rrelu(x, r=np.zeros((2, 3), np.float64))
    with pytest.raises(TypeError, match='r must be None or an array'):
        F.rrelu(x, r=[0.2, 0.2, 0.2])
