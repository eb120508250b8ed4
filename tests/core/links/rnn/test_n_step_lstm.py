"""NStepLSTM and NStepBiLSTM links: forward against NumPy, gradients, layout, lazy init."""

# ruff: noqa: NPY002

import importlib.util
import pathlib

import numpy as np
import pytest

import catena
from catena import backend, initializers, testing
from catena.links.rnn.n_step_lstm import NStepBiLSTM, NStepLSTM

_spec = importlib.util.spec_from_file_location(
    '_n_step_reference', pathlib.Path(__file__).with_name('_n_step_reference.py'))
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
reference = _module.reference

LENGTHS = (2, 3, 1)


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'cls': [NStepLSTM, NStepBiLSTM],
    'given_state': [True, False],
}))
class TestNStepLSTM(testing.LinkTestCase):

    n_layers = 2
    in_size = 3
    out_size = 2

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}
        else:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-3}

    def create_link(self, initializers_):
        with catena.using_config('dtype', self.dtype):
            return self.cls(self.n_layers, self.in_size, self.out_size, 0.0,
                            initial_bias=initializers.Normal(0.5))

    def generate_inputs(self):
        d = 2 if self.cls is NStepBiLSTM else 1
        shape = (self.n_layers * d, len(LENGTHS), self.out_size)
        hx = np.random.uniform(-1, 1, shape).astype(self.dtype)
        cx = np.random.uniform(-1, 1, shape).astype(self.dtype)
        xs = tuple(np.random.uniform(-1, 1, (n, self.in_size)).astype(self.dtype)
                   for n in LENGTHS)
        return (hx, cx) + xs

    def forward(self, link, inputs, device):
        hx, cx, *xs = inputs
        if not self.given_state:
            hx = cx = None
        hy, cy, ys = link(hx, cx, xs)
        return (hy, cy, *ys)

    def forward_expected(self, link, inputs):
        hx, cx, *xs = inputs
        if not self.given_state:
            hx, cx = np.zeros_like(hx), np.zeros_like(cx)
        hy, cy, ys = reference(link, 'lstm', hx, cx, xs)
        return tuple(v.astype(self.dtype) for v in (hy, cy, *ys))


@pytest.mark.parametrize('cls, d', [(NStepLSTM, 1), (NStepBiLSTM, 2)])
def test_parameter_layout(cls, d):
    link = cls(2, 3, 4, 0.5)
    assert len(link) == 2 * d and link.n_layers == 2 and link.direction == d
    assert link.out_size == 4 and link.dropout == 0.5
    names = sorted(name for name, _ in link.namedparams())
    assert names == sorted(f'/{k}/{p}{j}' for k in range(2 * d) for p in 'wb'
                           for j in range(8))
    for k, child in enumerate(link):
        for j in range(8):
            w = getattr(child, f'w{j}')
            in_size = 3 if k < d else 4 * d
            assert w.shape == ((4, in_size) if j < 4 else (4, 4))
            np.testing.assert_array_equal(getattr(child, f'b{j}').array, np.zeros(4))
        assert link.ws[k][0] is child.w0 and link.bs[k][7] is child.b7


def test_initializers_and_bad_arguments():
    link = NStepLSTM(1, 2, 3, 0.0, initialW=0.5, initial_bias=1.0)
    np.testing.assert_array_equal(link.ws[0][4].array, np.full((3, 3), 0.5))
    np.testing.assert_array_equal(link.bs[0][2].array, np.ones(3))
    with pytest.raises(ValueError, match='n_layers'):
        NStepLSTM(0, 2, 3, 0.0)
    with pytest.raises(ValueError, match='dropout'):
        NStepLSTM(1, 2, 3, 1.5)
    with pytest.raises(TypeError, match='use_cudnn'):
        NStepLSTM(1, 2, 3, 0.0, use_cudnn=True)
    with pytest.raises(ValueError, match='xs'):
        link(None, None, [])


@pytest.mark.parametrize('cls', [NStepLSTM, NStepBiLSTM])
def test_lazy_in_size(cls):
    link = cls(2, None, 3, 0.0)
    assert link.ws[0][0].array is None and link.ws[0][4].array is not None
    xs = [np.ones((2, 5), np.float32), np.ones((1, 5), np.float32)]
    hy, cy, ys = link(None, None, xs)
    assert link.in_size == 5 and link.ws[0][0].shape == (3, 5)
    assert link.ws[-1][0].shape == (3, 3 * link.direction)
    assert [y.shape for y in ys] == [(2, 3 * link.direction), (1, 3 * link.direction)]
    with pytest.raises(ValueError, match='in_size'):
        cls(1, None, 3, 0.0)(None, None, [np.ones(3, np.float32)])


def test_dropout_follows_train_mode():
    link = NStepLSTM(2, 3, 4, 0.5)
    xs = [np.random.uniform(-1, 1, (3, 3)).astype(np.float32)]
    with catena.using_config('train', False):
        _, _, ys1 = link(None, None, xs)
        _, _, ys2 = link(None, None, xs)
    np.testing.assert_array_equal(ys1[0].array, ys2[0].array)
    _, _, expected = reference(link, 'lstm', np.zeros((2, 1, 4)), np.zeros((2, 1, 4)), xs)
    np.testing.assert_allclose(ys1[0].array, expected[0], rtol=1e-5, atol=1e-6)


def test_device_transfer():
    link = NStepBiLSTM(1, 2, 3, 0.0)
    device = backend.get_device('@fake')
    link.to_device(device)
    xs = [device.send(np.ones((n, 2), np.float32)) for n in (1, 3)]
    hy, cy, ys = link(None, None, xs)
    for v in (hy, cy, *ys):
        assert backend.get_device_from_array(v.array) == device


def test_n_cells():
    assert NStepLSTM(1, 2, 3, 0.0).n_cells == 2
    assert NStepBiLSTM(1, 2, 3, 0.0).n_cells == 2
