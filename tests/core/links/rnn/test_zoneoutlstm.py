"""StatefulZoneoutLSTM link: test-mode forward against NumPy, zoneout in training, state."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
from catena import backend, testing
from catena.links.rnn.zoneoutlstm import StatefulZoneoutLSTM


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _step(link, c, h, x):
    z = (x.astype(np.float64) @ link.upward.W.array.T.astype(np.float64)
         + link.upward.b.array + h @ link.lateral.W.array.T.astype(np.float64))
    z = z.reshape(len(x), -1, 4)
    a, i, f, o = (z[:, :, k] for k in range(4))
    c = np.tanh(a) * _sigmoid(i) + _sigmoid(f) * c
    return c, _sigmoid(o) * np.tanh(c)


@testing.parameterize(*testing.product({'dtype': [np.float16, np.float32, np.float64]}))
class TestStatefulZoneoutLSTM(testing.LinkTestCase):
    """Outside training zoneout takes the new state: a plain LSTM step."""

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}
        else:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-3}

    def create_link(self, initializers_):
        with catena.using_config('dtype', self.dtype):
            link = StatefulZoneoutLSTM(3, 2, c_ratio=0.3, h_ratio=0.6)
        link.upward.b.array[...] = np.random.uniform(-1, 1, 8)
        return link

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, (2, 3)).astype(self.dtype) for _ in range(2))

    def forward(self, link, inputs, device):
        link.reset_state()
        with catena.using_config('train', False):
            y1 = link(inputs[0])
            y2 = link(inputs[1])
        return y1, y2, link.c

    def forward_expected(self, link, inputs):
        c1, h1 = _step(link, np.zeros((2, 2)), np.zeros((2, 2)), inputs[0])
        c2, h2 = _step(link, c1, h1, inputs[1])
        return tuple(v.astype(self.dtype) for v in (h1, h2, c2))


def test_training_mixes_old_and_new_states():
    link = StatefulZoneoutLSTM(3, 4, c_ratio=0.5, h_ratio=0.5)
    x = np.random.uniform(-1, 1, (50, 3)).astype(np.float32)
    c = np.random.uniform(1, 2, (50, 4)).astype(np.float32)
    h = np.random.uniform(1, 2, (50, 4)).astype(np.float32)
    link.set_state(c, h)
    y = link(x)
    c_new, h_new = _step(link, c.astype(np.float64), h.astype(np.float64), x)
    kept = np.isclose(y.array, h, rtol=1e-6)
    fresh = np.isclose(y.array, h_new, rtol=1e-5, atol=1e-6)
    assert np.all(kept | fresh) and 0.3 < kept.mean() < 0.7
    kept_c = np.isclose(link.c.array, c, rtol=1e-6)
    assert np.all(kept_c | np.isclose(link.c.array, c_new, rtol=1e-5, atol=1e-6))
    assert 0.3 < kept_c.mean() < 0.7


def test_arguments_state_and_device():
    link = StatefulZoneoutLSTM(3, 2)
    assert (link.c_ratio, link.h_ratio) == (0.5, 0.5)
    assert sorted(name for name, _ in link.namedparams()) == [
        '/lateral/W', '/upward/W', '/upward/b']
    with pytest.raises(TypeError, match='train'):
        StatefulZoneoutLSTM(3, 2, train=True)
    link(np.ones((2, 3), np.float32))
    assert link.h.shape == (2, 2)
    link.reset_state()
    assert link.c is None and link.h is None
    link(np.ones((2, 3), np.float32))
    device = backend.get_device('@fake')
    link.to_device(device)
    assert backend.get_device_from_array(link.h.array) == device
    assert backend.get_device_from_array(link(device.send(np.ones((2, 3), 'f'))).array) == device
