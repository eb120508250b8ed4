"""Bilinear link: every device, defaults, initial_bias, errors."""

# ruff: noqa: NPY002

import numpy as np
import pytest

from catena import testing
from catena.links.connection.bilinear import Bilinear


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'nobias': [False, True],
}))
class TestBilinear(testing.LinkTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}

    def generate_params(self):
        u = np.random.uniform
        return (u(-1, 1, (3, 2, 4)).astype(self.dtype), u(-1, 1, (3, 4)).astype(self.dtype),
                u(-1, 1, (2, 4)).astype(self.dtype), u(-1, 1, 4).astype(self.dtype))

    def create_link(self, initializers):
        W, V1, V2, b = initializers
        return Bilinear(3, 2, 4, self.nobias, W, None if self.nobias else (V1, V2, b))

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, (5, 3)).astype(self.dtype),
                np.random.uniform(-1, 1, (5, 2)).astype(self.dtype))

    def forward_expected(self, link, inputs):
        e1, e2 = (x.astype(np.float64) for x in inputs)
        y = np.einsum('nj,nk,jkl->nl', e1, e2, link.W.array.astype(np.float64))
        if not self.nobias:
            y += e1 @ link.V1.array + e2 @ link.V2.array + link.b.array
        return y.astype(self.dtype),


def test_defaults():
    link = Bilinear(20, 30, 40)
    assert sorted(name for name, _ in link.namedparams()) == ['/V1', '/V2', '/W', '/b']
    assert link.W.shape == (20, 30, 40)
    assert abs(link.W.array.std() * np.sqrt(20 * 30 * 40) - 1) < 0.05
    for name, shape in (('V1', (20, 40)), ('V2', (30, 40)), ('b', (40,))):
        array = getattr(link, name).array
        assert array.shape == shape and not array.any()
    assert [name for name, _ in Bilinear(2, 3, 4, nobias=True).namedparams()] == ['/W']


def test_bad_arguments():
    with pytest.raises(ValueError, match='shape'):
        Bilinear(2, 3, 4, initialW=np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match='initial_bias'):
        Bilinear(2, 3, 4, initial_bias=0.0)


@pytest.mark.parametrize('index, name', [(0, 'V1'), (1, 'V2'), (2, 'b')])
def test_initial_bias_shapes_are_checked(index, name):
    parts = [np.zeros((2, 4), np.float32), np.zeros((3, 4), np.float32),
             np.zeros(4, np.float32)]
    parts[index] = np.zeros(parts[index].shape[:-1] + (5,), np.float32)
    with pytest.raises(ValueError, match=name) as info:
        Bilinear(2, 3, 4, initial_bias=tuple(parts))
    assert isinstance(info.value, AssertionError)
