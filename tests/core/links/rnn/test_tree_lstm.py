"""ChildSumTreeLSTM and NaryTreeLSTM links: forward against NumPy, gradients, None inputs."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
from catena import backend, testing
from catena.links.rnn.tree_lstm import ChildSumTreeLSTM, NaryTreeLSTM


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _lin(layer, x):
    y = x.astype(np.float64) @ layer.W.array.T.astype(np.float64)
    return y if layer.b is None else y + layer.b.array


def _child_sum(link, cs, hs, x):
    n = link.state_size
    gx = _lin(link.W_x, x)
    a, i, o, fx = (gx[:, k * n:(k + 1) * n] for k in range(4))
    if hs:
        aio = _lin(link.W_h_aio, sum(hs))
        a, i, o = a + aio[:, :n], i + aio[:, n:2 * n], o + aio[:, 2 * n:]
    c = np.tanh(a) * _sigmoid(i)
    for c_k, h_k in zip(cs, hs):
        c = c + _sigmoid(fx + _lin(link.W_h_f, h_k)) * c_k
    return c, _sigmoid(o) * np.tanh(c)


def _nary(link, cs, hs, x):
    n = link.state_size
    g = _lin(link.W_x, x)
    for k, h in enumerate(hs, start=1):
        g = g + _lin(getattr(link, f'W_h{k}'), h)
    blocks = [g[:, k * n:(k + 1) * n] for k in range(3 + link.n_ary)]
    c = np.tanh(blocks[0]) * _sigmoid(blocks[1])
    for k, c_k in enumerate(cs):
        c = c + _sigmoid(blocks[3 + k]) * c_k
    return c, _sigmoid(blocks[2]) * np.tanh(c)


@testing.parameterize(*(testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'kind': ['child_sum'],
    'n_children': [0, 1, 3],
}) + testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'kind': ['nary'],
    'n_children': [1, 3],
})))
class TestTreeLSTM(testing.LinkTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}
        else:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-3}

    def create_link(self, initializers_):
        with catena.using_config('dtype', self.dtype):
            if self.kind == 'child_sum':
                link = ChildSumTreeLSTM(3, 2)
            else:
                link = NaryTreeLSTM(3, 2, n_ary=self.n_children)
        link.W_x.b.array[...] = np.random.uniform(-1, 1, link.W_x.b.shape)
        return link

    def generate_inputs(self):
        states = tuple(np.random.uniform(-1, 1, (2, 2)).astype(self.dtype)
                       for _ in range(2 * self.n_children))
        return states + (np.random.uniform(-1, 1, (2, 3)).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        n = self.n_children
        cs = [c.astype(np.float64) for c in inputs[:n]]
        hs = [h.astype(np.float64) for h in inputs[n:2 * n]]
        reference = _child_sum if self.kind == 'child_sum' else _nary
        return tuple(v.astype(self.dtype) for v in reference(link, cs, hs, inputs[-1]))


def test_layouts():
    link = ChildSumTreeLSTM(3, 2)
    assert sorted(name for name, _ in link.namedparams()) == [
        '/W_h_aio/W', '/W_h_f/W', '/W_x/W', '/W_x/b']
    assert link.W_x.W.shape == (8, 3) and link.W_h_aio.W.shape == (6, 2)
    link = NaryTreeLSTM(3, 2, n_ary=3)
    assert sorted(name for name, _ in link.namedparams()) == [
        '/W_h1/W', '/W_h2/W', '/W_h3/W', '/W_x/W', '/W_x/b']
    assert link.W_x.W.shape == (12, 3) and link.W_h2.W.shape == (12, 2)
    with pytest.raises(ValueError, match='n_ary'):
        NaryTreeLSTM(3, 2, n_ary=0)


@pytest.mark.parametrize('cls', [ChildSumTreeLSTM, NaryTreeLSTM])
def test_none_inputs_stand_for_zeros(cls):
    link = cls(3, 2)
    c1 = np.random.uniform(-1, 1, (2, 2)).astype(np.float32)
    h1 = np.random.uniform(-1, 1, (2, 2)).astype(np.float32)
    zero_state = np.zeros((2, 2), np.float32)
    c, h = link(c1, None, h1, None, None)
    c_ref, h_ref = link(c1, zero_state, h1, zero_state, np.zeros((2, 3), np.float32))
    np.testing.assert_allclose(c.array, c_ref.array, rtol=1e-6)
    np.testing.assert_allclose(h.array, h_ref.array, rtol=1e-6)
    with pytest.raises(ValueError, match='None'):
        link(None, None, None, None, None)
    with pytest.raises(ValueError, match='arguments'):
        link(c1, h1)


@pytest.mark.parametrize('cls', [ChildSumTreeLSTM, NaryTreeLSTM])
def test_device_transfer(cls):
    link = cls(3, 2)
    device = backend.get_device('@fake')
    link.to_device(device)
    c1 = device.send(np.ones((2, 2), np.float32))
    c, h = link(c1, None, c1, None, device.send(np.ones((2, 3), np.float32)))
    assert backend.get_device_from_array(c.array) == device
    assert backend.get_device_from_array(h.array) == device
