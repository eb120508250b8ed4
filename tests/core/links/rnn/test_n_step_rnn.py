"""NStepRNNTanh, NStepRNNReLU, NStepBiRNNTanh and NStepBiRNNReLU links."""

# ruff: noqa: NPY002

import importlib.util
import pathlib

import numpy as np
import pytest

import catena
from catena import backend, initializers, testing
from catena.links.rnn.n_step_rnn import NStepBiRNNReLU, NStepBiRNNTanh, NStepRNNReLU, NStepRNNTanh

_spec = importlib.util.spec_from_file_location(
    '_n_step_reference', pathlib.Path(__file__).with_name('_n_step_reference.py'))
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
reference = _module.reference

LENGTHS = (2, 3, 1)
KINDS = {NStepRNNTanh: 'tanh', NStepBiRNNTanh: 'tanh',
         NStepRNNReLU: 'relu', NStepBiRNNReLU: 'relu'}


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'cls': [NStepRNNTanh, NStepRNNReLU, NStepBiRNNTanh, NStepBiRNNReLU],
    'given_state': [True, False],
}))
class TestNStep(testing.LinkTestCase):

    n_layers = 2
    in_size = 3
    out_size = 2
    dodge_nondifferentiable = True

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
        shape = (self.n_layers * self.cls(1, 1, 1, 0.0).direction, len(LENGTHS), self.out_size)
        hx = np.random.uniform(-1, 1, shape).astype(self.dtype)
        xs = tuple(np.random.uniform(-1, 1, (n, self.in_size)).astype(self.dtype)
                   for n in LENGTHS)
        return (hx,) + xs

    def forward(self, link, inputs, device):
        hx, *xs = inputs
        hy, ys = link(hx if self.given_state else None, xs)
        return (hy, *ys)

    def forward_expected(self, link, inputs):
        hx, *xs = inputs
        if not self.given_state:
            hx = np.zeros_like(hx)
        hy, _, ys = reference(link, KINDS[self.cls], hx, None, xs)
        return tuple(v.astype(self.dtype) for v in (hy, *ys))


@pytest.mark.parametrize('cls', [NStepRNNTanh, NStepRNNReLU, NStepBiRNNTanh, NStepBiRNNReLU])
def test_parameter_layout(cls):
    d = 2 if cls in (NStepBiRNNTanh, NStepBiRNNReLU,) else 1
    link = cls(2, 3, 4, 0.5)
    assert len(link) == 2 * d and link.direction == d
    names = sorted(name for name, _ in link.namedparams())
    assert names == sorted(f'/{k}/{p}{j}' for k in range(2 * d) for p in 'wb'
                           for j in range(2))
    for k, child in enumerate(link):
        for j in range(2):
            in_size = 3 if k < d else 4 * d
            assert getattr(child, f'w{j}').shape == ((4, in_size) if j < 1 else (4, 4))
            np.testing.assert_array_equal(getattr(child, f'b{j}').array, np.zeros(4))


@pytest.mark.parametrize('cls', [NStepRNNTanh, NStepRNNReLU, NStepBiRNNTanh, NStepBiRNNReLU])
def test_lazy_in_size_and_device(cls):
    link = cls(2, None, 3, 0.0)
    device = backend.get_device('@fake')
    link.to_device(device)
    xs = [device.send(np.ones((n, 5), np.float32)) for n in (1, 2)]
    hy, ys = link(None, xs)
    d = link.direction
    assert link.in_size == 5 and link.ws[0][0].shape == (3, 5)
    assert [y.shape for y in ys] == [(1, 3 * d), (2, 3 * d)]
    assert hy.shape == (2 * d, 2, 3)
    for v in (hy, *ys, link.ws[0][0]):
        assert backend.get_device_from_array(v.array) == device


@pytest.mark.parametrize('cls', [NStepRNNTanh, NStepRNNReLU, NStepBiRNNTanh, NStepBiRNNReLU])
def test_n_cells(cls):
    assert cls(1, 2, 3, 0.0).n_cells == 1
