"""MLPConvolution2D link: every device, lazy channels, structure."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import initializers, testing
from catena.links.connection.mlp_convolution_2d import MLPConvolution2D


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
}))
class TestMLPConvolution2D(testing.LinkTestCase):

    dodge_nondifferentiable = True

    def create_link(self, initializers):
        with catena.using_config('dtype', self.dtype):
            link = MLPConvolution2D(2, (3, 2, 2), 2, pad=1)
        for param in link.params():
            param.array[...] = np.random.uniform(-1, 1, param.shape)
        return link

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (2, 2, 3, 3)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        first, second, third = link
        xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
        h = np.zeros((2, 3, 4, 4))
        for i in range(4):
            for j in range(4):
                h[:, :, i, j] = np.einsum('nchw,ochw->no', xp[:, :, i:i + 2, j:j + 2],
                                          first.W.array)
        h = np.maximum(h + first.b.array.reshape(1, -1, 1, 1), 0)
        h = np.einsum('nchw,oc->nohw', h, second.W.array[:, :, 0, 0])
        h = np.maximum(h + second.b.array.reshape(1, -1, 1, 1), 0)
        y = np.einsum('nchw,oc->nohw', h, third.W.array[:, :, 0, 0])
        return (y + third.b.array.reshape(1, -1, 1, 1)).astype(self.dtype),


def test_structure_and_lazy_channels():
    link = MLPConvolution2D((4, 5), 3, conv_init=initializers.Constant(0.1), bias_init=1.0)
    assert len(link) == 2 and link[0].W.array is None and link[1].W.shape == (5, 4, 1, 1)
    y = link(np.ones((1, 2, 3, 3), np.float32))
    assert link[0].W.shape == (4, 2, 3, 3) and y.shape == (1, 5, 1, 1)
    np.testing.assert_allclose(y.array, np.full((1, 5, 1, 1), 0.4 * 2.8 + 1), rtol=1e-6)
    assert sorted(name for name, _ in link.namedparams()) == ['/0/W', '/0/b', '/1/W', '/1/b']


def test_activation_is_not_applied_after_the_last():
    link = MLPConvolution2D(1, (1, 1), 1, activation=F.relu, conv_init=1.0, bias_init=-2.0)
    # first: relu(1 - 2) = 0; last: 0 - 2 = -2 (no relu)
    assert link(np.ones((1, 1, 1, 1), np.float32)).array.item() == -2.0
    with pytest.raises(ValueError, match='out_channels'):
        MLPConvolution2D(1, (), 1)


def test_old_arguments_are_rejected():
    with pytest.raises(TypeError, match='sequence'):
        MLPConvolution2D(3, 4, None, 1, 0, None, 1)
    with pytest.raises(ValueError, match='wscale'):
        MLPConvolution2D(3, (4, 5), 1, wscale=1)
    with pytest.raises(TypeError, match='spam'):
        MLPConvolution2D(3, (4, 5), 1, spam=1)
