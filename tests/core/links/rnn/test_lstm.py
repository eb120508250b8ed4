"""LSTM and StatelessLSTM links: forward against NumPy, gradients, state handling, devices."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
from catena import backend, initializers, testing
from catena.links.rnn.lstm import LSTM, StatelessLSTM


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _step(link, c, h, x):
    """One LSTM step in NumPy (float64) from the link's CPU parameters."""
    n = link.state_size
    z = x.astype(np.float64) @ link.upward.W.array.T.astype(np.float64) + link.upward.b.array
    if h is not None:
        z = z + h @ link.lateral.W.array.T.astype(np.float64)
    z = z.reshape(len(x), n, 4)
    a, i, f, o = (z[:, :, k] for k in range(4))
    if c is None:
        c = np.zeros((len(x), n))
    c_new = np.tanh(a) * _sigmoid(i) + _sigmoid(f) * c[:len(x)]
    return c_new, _sigmoid(o) * np.tanh(c_new)


def _make(cls, dtype, in_size=3, out_size=4):
    with catena.using_config('dtype', dtype):
        return cls(in_size, out_size, bias_init=initializers.Normal(0.5),
                   forget_bias_init=initializers.Normal(0.5))


class _Options:
    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}
        else:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-3}


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'batches': [(3, 3), (3, 2)],
}))
class TestLSTMTwoSteps(_Options, testing.LinkTestCase):
    """Two calls of the stateful link, the second maybe on a smaller batch."""

    def create_link(self, initializers):
        return _make(LSTM, self.dtype)

    def generate_inputs(self):
        b1, b2 = self.batches
        return (np.random.uniform(-1, 1, (b1, 3)).astype(self.dtype),
                np.random.uniform(-1, 1, (b2, 3)).astype(self.dtype))

    def forward(self, link, inputs, device):
        x1, x2 = inputs
        link.reset_state()
        y1 = link(x1)
        y2 = link(x2)
        return y1, y2, link.c, link.h

    def forward_expected(self, link, inputs):
        x1, x2 = inputs
        c1, h1 = _step(link, None, None, x1)
        b2 = len(x2)
        c2, h2 = _step(link, c1, h1[:b2], x2)
        c = np.concatenate([c2, c1[b2:]])
        h = np.concatenate([h2, h1[b2:]])
        return tuple(v.astype(self.dtype) for v in (h1, h2, c, h))


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'state': ['none', 'h_only', 'both'],
}))
class TestStatelessLSTM(_Options, testing.LinkTestCase):

    def create_link(self, initializers):
        return _make(StatelessLSTM, self.dtype)

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, (2, 3)).astype(self.dtype)
        c = np.random.uniform(-1, 1, (2, 4)).astype(self.dtype)
        h = np.random.uniform(-1, 1, (2, 4)).astype(self.dtype)
        return x, c, h

    def forward(self, link, inputs, device):
        x, c, h = inputs
        c_new, h_new = link(c if self.state == 'both' else None,
                            None if self.state == 'none' else h, x)
        return c_new, h_new

    def forward_expected(self, link, inputs):
        x, c, h = inputs
        c_new, h_new = _step(link, c.astype(np.float64) if self.state == 'both' else None,
                             None if self.state == 'none' else h.astype(np.float64), x)
        return c_new.astype(self.dtype), h_new.astype(self.dtype)


def test_parameters_and_initial_biases():
    link = LSTM(3, 2)
    assert sorted(name for name, _ in link.namedparams()) == [
        '/lateral/W', '/upward/W', '/upward/b']
    assert link.upward.W.shape == (8, 3) and link.lateral.W.shape == (8, 2)
    assert link.state_size == 2
    # Gates are interleaved per unit (a, i, f, o): only the forget gates start at one.
    np.testing.assert_array_equal(link.upward.b.array, [0, 0, 1, 0, 0, 0, 1, 0])
    assert np.all(link.upward.W.array != 0) and np.all(link.lateral.W.array != 0)


def test_initializers_apply_per_block():
    link = LSTM(3, 2, lateral_init=1.0, upward_init=2.0, bias_init=3.0, forget_bias_init=4.0)
    np.testing.assert_array_equal(link.lateral.W.array, np.ones((8, 2)))
    np.testing.assert_array_equal(link.upward.W.array, np.full((8, 3), 2.0))
    np.testing.assert_array_equal(link.upward.b.array, [3, 3, 4, 3, 3, 3, 4, 3])


@pytest.mark.parametrize('cls', [LSTM, StatelessLSTM])
def test_lazy_in_size(cls):
    link = cls(None, 4, upward_init=0.5, lateral_init=0.25)
    assert link.upward.W.array is None
    assert cls(4).upward.W.array is None and cls(4).state_size == 4
    x = np.ones((2, 2, 3), np.float32)
    y = link(x) if cls is LSTM else link(None, None, x)[1]
    assert link.upward.W.shape == (16, 6)
    np.testing.assert_array_equal(link.upward.W.array, np.full((16, 6), 0.5))
    assert y.shape == (2, 4)
    with pytest.raises(ValueError, match='in_size'):
        other = cls(None, 4)
        other(np.ones((2, 0), np.float32)) if cls is LSTM else other(None, None, np.ones(0, 'f'))
    empty = cls(4)
    y = empty(np.ones((0, 3), np.float32)) if cls is LSTM else \
        empty(None, None, np.ones((0, 3), np.float32))[1]
    assert y.shape == (0, 4) and empty.upward.W.shape == (16, 3)


def test_state_handling():
    link = LSTM(3, 4)
    assert link.c is None and link.h is None
    x = np.random.uniform(-1, 1, (3, 3)).astype(np.float32)
    y = link(x)
    assert link.h is y and link.c.shape == (3, 4)
    with pytest.raises(TypeError, match='batch size'):
        link(np.zeros((4, 3), np.float32))
    link.reset_state()
    assert link.c is None and link.h is None
    c = np.random.uniform(-1, 1, (3, 4)).astype(np.float32)
    h = np.random.uniform(-1, 1, (3, 4)).astype(np.float32)
    link.set_state(catena.Variable(c), h)
    assert isinstance(link.h, catena.Variable)
    y = link(x)
    _, expected = _step(link, c.astype(np.float64), h.astype(np.float64), x)
    np.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match='c'):
        link.set_state([1, 2], h)


def test_empty_batch_keeps_the_state():
    link = LSTM(3, 4)
    link(np.ones((2, 3), np.float32))
    h = link.h
    y = link(np.ones((0, 3), np.float32))
    assert y.shape == (0, 4)
    np.testing.assert_array_equal(link.h.array, h.array)


def test_state_moves_with_the_link():
    link = LSTM(3, 4)
    link(np.ones((2, 3), np.float32))
    device = backend.get_device('@fake')
    link.to_device(device)
    assert backend.get_device_from_array(link.h.array) == device
    assert backend.get_device_from_array(link.c.array) == device
    assert backend.get_device_from_array(link.upward.W.array) == device
    y = link(device.send(np.ones((2, 3), np.float32)))
    assert backend.get_device_from_array(y.array) == device
    link.reset_state()
    link.set_state(np.zeros((2, 4), np.float32), np.zeros((2, 4), np.float32))
    assert backend.get_device_from_array(link.c.array) == device
