"""GRU, StatefulGRU and StatelessGRU links: forward against NumPy, gradients, state."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
from catena import backend, initializers, testing
from catena.links.rnn.gru import GRU, StatefulGRU, StatelessGRU


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _lin(link, x):
    return x.astype(np.float64) @ link.W.array.T.astype(np.float64) + link.b.array


def _step(link, h, x):
    """One GRU step in NumPy; ``h`` None is the stateful link's first step."""
    z = _lin(link.W_z, x)
    h_bar = _lin(link.W, x)
    if h is None:
        return _sigmoid(z) * np.tanh(h_bar)
    r = _sigmoid(_lin(link.W_r, x) + _lin(link.U_r, h))
    z = _sigmoid(z + _lin(link.U_z, h))
    h_bar = np.tanh(h_bar + _lin(link.U, r * h))
    return z * h_bar + (1 - z) * h


class _Options:
    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}
        else:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-3}

    def create_link(self, initializers_):
        with catena.using_config('dtype', self.dtype):
            return self.cls(3, 4, bias_init=initializers.Normal(0.5))


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'cls': [StatefulGRU, GRU],
}))
class TestStatefulGRU(_Options, testing.LinkTestCase):

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, (2, 3)).astype(self.dtype) for _ in range(2))

    def forward(self, link, inputs, device):
        x1, x2 = inputs
        link.reset_state()
        y1 = link(x1)
        return y1, link(x2)

    def forward_expected(self, link, inputs):
        x1, x2 = inputs
        h1 = _step(link, None, x1)
        return h1.astype(self.dtype), _step(link, h1, x2).astype(self.dtype)


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestStatelessGRU(_Options, testing.LinkTestCase):

    cls = StatelessGRU

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, (2, 4)).astype(self.dtype),
                np.random.uniform(-1, 1, (2, 3)).astype(self.dtype))

    def forward_expected(self, link, inputs):
        h, x = inputs
        return _step(link, h.astype(np.float64), x).astype(self.dtype),


def test_parameters_and_defaults():
    link = StatefulGRU(3, 4)
    assert sorted(name for name, _ in link.namedparams()) == sorted(
        f'/{n}/{p}' for n in ('W_r', 'U_r', 'W_z', 'U_z', 'W', 'U') for p in 'Wb')
    assert link.W_r.W.shape == (4, 3) and link.U_r.W.shape == (4, 4)
    np.testing.assert_array_equal(link.W.b.array, np.zeros(4))
    link = StatelessGRU(3, 4, init=0.5, inner_init=0.25, bias_init=1.0)
    np.testing.assert_array_equal(link.W_z.W.array, np.full((4, 3), 0.5))
    np.testing.assert_array_equal(link.U.W.array, np.full((4, 4), 0.25))
    np.testing.assert_array_equal(link.U.b.array, np.ones(4))


def test_lazy_in_size():
    link = StatelessGRU(4)
    assert link.W.W.array is None
    y = link(np.zeros((2, 4), np.float32), np.ones((2, 5), np.float32))
    assert link.W.W.shape == (4, 5) and y.shape == (2, 4)


def test_state_handling_and_devices():
    link = GRU(3, 4)
    x = np.random.uniform(-1, 1, (2, 3)).astype(np.float32)
    y = link(x)
    assert link.h is y
    h = np.random.uniform(-1, 1, (2, 4)).astype(np.float32)
    link.set_state(h)
    y = link(x)
    np.testing.assert_allclose(y.array, _step(link, h.astype(np.float64), x), rtol=1e-5,
                               atol=1e-6)
    link.reset_state()
    assert link.h is None
    with pytest.raises(ValueError, match='StatelessGRU'):
        link(h, x)
    with pytest.raises(ValueError, match='one argument'):
        link()
    link(x)
    device = backend.get_device('@fake')
    link.to_device(device)
    assert backend.get_device_from_array(link.h.array) == device
    assert backend.get_device_from_array(link(device.send(x)).array) == device
