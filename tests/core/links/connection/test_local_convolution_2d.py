"""LocalConvolution2D link: every device, lazy shapes, errors."""

# ruff: noqa: NPY002

import numpy as np
import pytest

from catena import initializers, testing
from catena.links.connection.local_convolution_2d import LocalConvolution2D


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'nobias': [False, True],
    'stride': [1, 2],
}))
class TestLocalConvolution2D(testing.LinkTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}

    def _out(self):
        return (5 - 2) // self.stride + 1, (4 - 3) // self.stride + 1

    def generate_params(self):
        oh, ow = self._out()
        return (np.random.uniform(-1, 1, (2, oh, ow, 3, 2, 3)).astype(self.dtype),
                np.random.uniform(-1, 1, (2, oh, ow)).astype(self.dtype))

    def create_link(self, initializers):
        W, b = initializers
        return LocalConvolution2D(3, 2, (5, 4), (2, 3), self.stride, self.nobias, W, b)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (2, 3, 5, 4)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        W = link.W.array.astype(np.float64)
        oh, ow = self._out()
        s = self.stride
        y = np.zeros((2, 2, oh, ow))
        for i in range(oh):
            for j in range(ow):
                patch = x[:, :, i * s:i * s + 2, j * s:j * s + 3].astype(np.float64)
                y[:, :, i, j] = np.einsum('nchw,ochw->no', patch, W[:, i, j])
        if not self.nobias:
            y += link.b.array
        return y.astype(self.dtype),


def test_lazy_shapes():
    link = LocalConvolution2D(None, 4, ksize=2, initialW=initializers.Constant(1.0))
    assert link.W.array is None and link.b.array is None
    y = link(np.ones((1, 3, 4, 5), np.float32))
    assert link.W.shape == (4, 3, 4, 3, 2, 2) and link.b.shape == (4, 3, 4)
    np.testing.assert_array_equal(y.array, np.full((1, 4, 3, 4), 12.0, np.float32))
    assert LocalConvolution2D(3, 2, 4, 3, nobias=True).b is None
    assert LocalConvolution2D(3, 2, 4, 3).W.shape == (2, 2, 2, 3, 3, 3)


def test_errors():
    with pytest.raises(TypeError, match='ksize must be a positive int or a pair .*; got None'):
        LocalConvolution2D(3, 2, 4)
    with pytest.raises(ValueError, match='smaller than the filter'):
        LocalConvolution2D(3, 2, 2, 3)
    link = LocalConvolution2D(None, 2, ksize=3)
    with pytest.raises(ValueError, match='smaller than the filter'):
        link(np.ones((1, 1, 2, 5), np.float32))
    with pytest.raises(ValueError, match=r'\(n, c, h, w\)'):
        link(np.ones((1, 5, 5), np.float32))
