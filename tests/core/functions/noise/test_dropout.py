"""dropout: scaled masks, reuse of the mask in backward, train/test mode, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _host_random(device):
    """Whether the device draws from NumPy's global generator (CuPy has its own)."""
    return not device.name.startswith('@cupy')


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 4), ()],
    'ratio': [0.0, 0.3, 0.9],
}))
class TestDropoutWithMask(testing.FunctionTestCase):

    def setUp(self):
        keep = np.random.RandomState(1).rand(*self.shape) >= self.ratio
        self.mask = np.asarray(keep / (1 - self.ratio), dtype=self.dtype)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.dropout(inputs[0], self.ratio, mask=device.send(self.mask)),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(x * self.mask, dtype=self.dtype),


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(4, 5), ()],
    'ratio': [0.0, 0.5],
}))
class TestDropoutRandomMask(testing.FunctionTestCase):
    """The mask drawn from the seeded generator: x * (rand >= ratio) / (1 - ratio)."""

    def before_test(self, test_name):
        if test_name == 'test_forward' and not _host_random(self.backend_config.device):
            self.skip_forward_test = True

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        device.xp.random.seed(3)  # the same mask on every call of the gradient checks
        return F.dropout(inputs[0], self.ratio),

    def forward_expected(self, inputs):
        x, = inputs
        np.random.seed(3)
        keep = np.random.rand(*x.shape) >= self.ratio
        return np.asarray(x * keep * x.dtype.type(1 / (1 - self.ratio)), dtype=self.dtype),


def test_elements_are_dropped_or_scaled_at_the_ratio():
    x = np.random.uniform(1, 2, (100, 100)).astype(np.float32)
    y = F.dropout(x, 0.3).array
    dropped = y == 0
    assert abs(dropped.mean() - 0.3) < 0.03
    np.testing.assert_allclose(y[~dropped], x[~dropped] / np.float32(0.7), rtol=1e-6)


def test_same_seed_same_mask_and_other_seed_another():
    x = np.ones((10, 10), dtype=np.float32)
    np.random.seed(5)
    y1 = F.dropout(x).array
    np.random.seed(5)
    y2 = F.dropout(x).array
    np.random.seed(6)
    y3 = F.dropout(x).array
    np.testing.assert_array_equal(y1, y2)
    assert not np.array_equal(y1, y3)


def test_backward_reuses_the_mask_and_return_mask_gives_it():
    x = catena.Variable(np.random.uniform(1, 2, (6, 7)).astype(np.float32))
    y, mask = F.dropout(x, 0.4, return_mask=True)
    assert type(y.creator).__name__ == 'Dropout'
    assert mask.dtype == np.float32 and set(np.unique(mask)) <= {0, np.float32(1 / 0.6)}
    gy = catena.Variable(np.random.uniform(-1, 1, (6, 7)).astype(np.float32))
    gx, = catena.grad([y], [x], [gy], enable_double_backprop=True)
    assert type(gx.creator).__name__ == 'DropoutGrad'
    np.testing.assert_array_equal(gx.array, gy.array * mask)
    np.testing.assert_array_equal(y.array, x.array * mask)
    # The returned mask reproduces the output.
    np.testing.assert_array_equal(F.dropout(x, 0.4, mask=mask).array, y.array)


def test_test_mode_returns_the_input():
    x = catena.Variable(np.random.uniform(-1, 1, (3, 4)).astype(np.float32))
    with catena.using_config('train', False):
        assert F.dropout(x) is x
        y, mask = F.dropout(x.array, return_mask=True)
    assert mask is None
    np.testing.assert_array_equal(y.array, x.array)


def test_random_mask_uses_the_input_device():
    fake = catena.get_device('@fake')
    x = np.random.uniform(1, 2, (5, 5)).astype(np.float32)
    np.random.seed(0)
    expected = F.dropout(x).array
    np.random.seed(0)
    y = F.dropout(fake.send(x))
    assert catena.backend.get_device_from_array(y.array) == fake
    np.testing.assert_array_equal(fake.to_numpy(y.array), expected)


@pytest.mark.parametrize('ratio', [-0.1, 1.0, 1.5])
def test_ratio_outside_the_interval_is_rejected(ratio):
    with pytest.raises(ValueError, match='ratio'):
        F.dropout(np.ones(3, dtype=np.float32), ratio)


def test_mask_of_another_shape_is_rejected():
    with pytest.raises(ValueError, match='mask'):
        F.dropout(np.ones((2, 3), dtype=np.float32), mask=np.ones((3, 2), dtype=np.float32))


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match='x'):
        F.dropout(np.ones(3, dtype=np.int32))
