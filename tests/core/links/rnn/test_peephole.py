"""StatefulPeepholeLSTM link: forward against NumPy, gradients, state, devices."""

# ruff: noqa: NPY002

import numpy as np

import catena
from catena import backend, testing
from catena.links.rnn.peephole import StatefulPeepholeLSTM


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _step(link, c, h, x):
    def w(layer):
        return layer.W.array.T.astype(np.float64)

    z = x.astype(np.float64) @ w(link.upward) + link.upward.b.array
    if h is not None:
        z = z + h @ w(link.lateral)
    z = z.reshape(len(x), -1, 4)
    a, i, f, o = (z[:, :, k] for k in range(4))
    i = _sigmoid(i + c @ w(link.peep_i))
    f = _sigmoid(f + c @ w(link.peep_f))
    c = np.tanh(a) * i + f * c
    o = _sigmoid(o + c @ w(link.peep_o))
    return c, o * np.tanh(c)


@testing.parameterize(*testing.product({'dtype': [np.float16, np.float32, np.float64]}))
class TestStatefulPeepholeLSTM(testing.LinkTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}
        else:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-3}

    def create_link(self, initializers_):
        with catena.using_config('dtype', self.dtype):
            link = StatefulPeepholeLSTM(3, 2)
        link.upward.b.array[...] = np.random.uniform(-1, 1, 8)
        return link

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, (2, 3)).astype(self.dtype) for _ in range(2))

    def forward(self, link, inputs, device):
        link.reset_state()
        y1 = link(inputs[0])
        y2 = link(inputs[1])
        return y1, y2, link.c

    def forward_expected(self, link, inputs):
        c1, h1 = _step(link, np.zeros((2, 2)), None, inputs[0])
        c2, h2 = _step(link, c1, h1, inputs[1])
        return tuple(v.astype(self.dtype) for v in (h1, h2, c2))


def test_layout_state_and_device():
    link = StatefulPeepholeLSTM(3, 2)
    assert sorted(name for name, _ in link.namedparams()) == [
        '/lateral/W', '/peep_f/W', '/peep_i/W', '/peep_o/W', '/upward/W', '/upward/b']
    assert link.upward.W.shape == (8, 3) and link.peep_o.W.shape == (2, 2)
    x = np.random.uniform(-1, 1, (2, 3)).astype(np.float32)
    c = np.random.uniform(-1, 1, (2, 2)).astype(np.float32)
    h = np.random.uniform(-1, 1, (2, 2)).astype(np.float32)
    link.set_state(c, h)
    y = link(x)
    np.testing.assert_allclose(y.array, _step(link, c.astype(np.float64), h, x)[1],
                               rtol=1e-5, atol=1e-6)
    link.reset_state()
    assert link.c is None and link.h is None
    link(x)
    device = backend.get_device('@fake')
    link.to_device(device)
    assert backend.get_device_from_array(link.c.array) == device
    assert backend.get_device_from_array(link(device.send(x)).array) == device
