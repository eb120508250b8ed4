"""zoneout: elements of h kept at the ratio, gradients routed accordingly, train/test."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 4), ()],
    'ratio': [0.0, 0.4, 1.0],
}))
class TestZoneout(testing.FunctionTestCase):
    """With the generator reseeded on each call, element i comes from x iff rand_i >= ratio."""

    def before_test(self, test_name):
        device = self.backend_config.device
        if test_name == 'test_forward' and device.name.startswith('@cupy') \
                and 0 < self.ratio < 1:
            self.skip_forward_test = True  # CuPy draws from its own generator

    def generate_inputs(self):
        h = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        x = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return h, x

    def forward(self, inputs, device):
        device.xp.random.seed(8)
        h, x = inputs
        return F.zoneout(h, x, self.ratio),

    def forward_expected(self, inputs):
        h, x = inputs
        np.random.seed(8)
        from_x = np.random.rand(*self.shape) >= self.ratio
        return np.asarray(np.where(from_x, x, h)),


def test_h_is_kept_at_the_ratio_and_gradients_follow_the_choice():
    h = catena.Variable(np.full((100, 100), -1.0, dtype=np.float32))
    x = catena.Variable(np.full((100, 100), 1.0, dtype=np.float32))
    y = F.zoneout(h, x, ratio=0.3)
    assert type(y.creator).__name__ == 'Zoneout'
    from_h = y.array == -1
    assert abs(from_h.mean() - 0.3) < 0.03
    gy = np.random.uniform(-1, 1, (100, 100)).astype(np.float32)
    y.grad = gy
    y.backward()
    np.testing.assert_array_equal(h.grad, np.where(from_h, gy, 0))
    np.testing.assert_array_equal(x.grad, np.where(from_h, 0, gy))


def test_test_mode_returns_x():
    h = np.zeros((2, 3), dtype=np.float32)
    x = catena.Variable(np.ones((2, 3), dtype=np.float32))
    with catena.using_config('train', False):
        assert F.zoneout(h, x) is x


@pytest.mark.parametrize('ratio', [-0.5, 1.5])
def test_ratio_outside_the_interval_is_rejected(ratio):
    with pytest.raises(ValueError, match='ratio'):
        F.zoneout(np.zeros(2, dtype=np.float32), np.zeros(2, dtype=np.float32), ratio)


def test_mismatched_states_are_rejected():
    with pytest.raises(InvalidType, match='x'):
        F.zoneout(np.zeros(2, dtype=np.float32), np.zeros(3, dtype=np.float32))


def test_draws_one_rand_of_the_shape_of_x(monkeypatch):
    # As in Chainer: one xp.random.rand(*x.shape), the element comes from h where it is
    # below the ratio.
    draws = np.array([[0.1, 0.9, 0.5], [0.7, 0.2, 0.3]])
    calls = []
    monkeypatch.setattr(np.random, 'rand', lambda *shape: calls.append(shape) or draws)
    h = np.zeros((2, 3), dtype=np.float32)
    x = np.ones((2, 3), dtype=np.float32)
    y = F.zoneout(h, x, 0.4)
    assert calls == [(2, 3)]
    np.testing.assert_array_equal(y.array, (draws >= 0.4).astype(np.float32))
