"""Inception link: every device (against a NumPy composition), structure, lazy channels."""

# ruff: noqa: NPY002

import numpy as np

import catena
from catena import initializers, testing
from catena.links.connection.inception import Inception


def _conv(x, W, b, pad):
    """Stride-1 convolution in float64."""
    k = W.shape[2]
    xp = np.pad(x, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    h, w = xp.shape[2] - k + 1, xp.shape[3] - k + 1
    y = np.zeros((x.shape[0], W.shape[0], h, w))
    for i in range(h):
        for j in range(w):
            y[:, :, i, j] = np.einsum('nchw,ochw->no', xp[:, :, i:i + k, j:j + k], W)
    return y + b.reshape(1, -1, 1, 1)


def _max_pool_3x3(x):
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)], constant_values=-np.inf)
    h, w = x.shape[2:]
    return np.max([xp[:, :, i:i + h, j:j + w] for i in range(3) for j in range(3)], axis=0)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
}))
class TestInception(testing.LinkTestCase):

    dodge_nondifferentiable = True
    check_backward_options = {'atol': 1e-3, 'rtol': 1e-2}

    def create_link(self, initializers):
        with catena.using_config('dtype', self.dtype):
            link = Inception(2, 1, 2, 1, 1, 2, 1)
        for param in link.params():
            param.array[...] = np.random.uniform(-1, 1, param.shape)
        return link

    def generate_inputs(self):
        x = np.random.permutation(32).reshape(1, 2, 4, 4) / 32.0 - 0.5  # no ties in max pool
        return x.astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        x = x.astype(np.float64)

        def conv(name, h, pad=0):
            child = getattr(link, name)
            return _conv(h, child.W.array.astype(np.float64), child.b.array, pad)

        relu = lambda v: np.maximum(v, 0)  # noqa: E731
        out1 = conv('conv1', x)
        out3 = conv('conv3', relu(conv('proj3', x)), 1)
        out5 = conv('conv5', relu(conv('proj5', x)), 2)
        pool = conv('projp', _max_pool_3x3(x))
        return relu(np.concatenate([out1, out3, out5, pool], axis=1)).astype(self.dtype),


def test_structure_and_lazy_channels():
    link = Inception(None, 2, 3, 4, 1, 5, 6, conv_init=initializers.Constant(0.5),
                     bias_init=0.25)
    y = link(np.ones((1, 3, 5, 5), np.float32))
    assert y.shape == (1, 2 + 4 + 5 + 6, 5, 5)
    assert link.conv1.W.shape == (2, 3, 1, 1) and link.conv3.W.shape == (4, 3, 3, 3)
    assert link.conv5.W.shape == (5, 1, 5, 5) and link.projp.W.shape == (6, 3, 1, 1)
    np.testing.assert_allclose(y.array[0, :2, 2, 2], [1.75, 1.75])
    assert sorted(name for name, _ in link.namedlinks(skipself=True)) == [
        '/conv1', '/conv3', '/conv5', '/proj3', '/proj5', '/projp']
