"""StatefulMGU and StatelessMGU links: forward against NumPy, gradients, state."""

# ruff: noqa: NPY002

import numpy as np

import catena
from catena import backend, testing
from catena.links.rnn.mgu import StatefulMGU, StatelessMGU


def _step(link, h, x):
    def lin(layer, v):
        return v @ layer.W.array.T.astype(np.float64) + layer.b.array

    h = h.astype(np.float64)
    x = x.astype(np.float64)
    f = 1 / (1 + np.exp(-lin(link.W_f, np.concatenate([h, x], axis=1))))
    h_bar = np.tanh(lin(link.W_h, np.concatenate([f * h, x], axis=1)))
    return f * h_bar + (1 - f) * h


class _Options:
    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}
        else:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-3}

    def create_link(self, initializers_):
        with catena.using_config('dtype', self.dtype):
            return self.cls(3, 4)


@testing.parameterize(*testing.product({'dtype': [np.float16, np.float32, np.float64]}))
class TestStatelessMGU(_Options, testing.LinkTestCase):

    cls = StatelessMGU

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, (2, 4)).astype(self.dtype),
                np.random.uniform(-1, 1, (2, 3)).astype(self.dtype))

    def forward_expected(self, link, inputs):
        h, x = inputs
        return _step(link, h, x).astype(self.dtype),


@testing.parameterize(*testing.product({'dtype': [np.float16, np.float32, np.float64]}))
class TestStatefulMGU(_Options, testing.LinkTestCase):

    cls = StatefulMGU

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, (2, 3)).astype(self.dtype) for _ in range(2))

    def forward(self, link, inputs, device):
        link.reset_state()
        return link(inputs[0]), link(inputs[1])

    def forward_expected(self, link, inputs):
        h1 = _step(link, np.zeros((2, 4)), inputs[0])
        return h1.astype(self.dtype), _step(link, h1, inputs[1]).astype(self.dtype)


def test_layout_state_and_device():
    link = StatefulMGU(3, 4)
    assert sorted(name for name, _ in link.namedparams()) == [
        '/W_f/W', '/W_f/b', '/W_h/W', '/W_h/b']
    assert link.W_f.W.shape == (4, 7)
    x = np.random.uniform(-1, 1, (2, 3)).astype(np.float32)
    h = np.random.uniform(-1, 1, (2, 4)).astype(np.float32)
    link.set_state(h)
    np.testing.assert_allclose(link(x).array, _step(link, h, x), rtol=1e-5, atol=1e-6)
    link.reset_state()
    assert link.h is None
    link(x)
    device = backend.get_device('@fake')
    link.to_device(device)
    assert backend.get_device_from_array(link.h.array) == device
    assert backend.get_device_from_array(link(device.send(x)).array) == device
