"""DepthwiseConvolution2D link: every device, lazy channels, arguments."""

# ruff: noqa: NPY002

import numpy as np
import pytest

from catena import initializers, testing
from catena.links.connection.depthwise_convolution_2d import DepthwiseConvolution2D


def _reference(x, W, b, stride, pad):
    """Output channel c * D + d is channel c convolved with W[d, c]."""
    x = x.astype(np.float64)
    W = W.astype(np.float64)
    D, C, kh, kw = W.shape
    xp = np.pad(x, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    oh = (xp.shape[2] - kh) // stride + 1
    ow = (xp.shape[3] - kw) // stride + 1
    y = np.zeros((x.shape[0], C * D, oh, ow))
    for c in range(C):
        for d in range(D):
            for i in range(oh):
                for j in range(ow):
                    patch = xp[:, c, i * stride:i * stride + kh, j * stride:j * stride + kw]
                    y[:, c * D + d, i, j] = (patch * W[d, c]).sum(axis=(1, 2))
    if b is not None:
        y += b.astype(np.float64).reshape(1, -1, 1, 1)
    return y


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'nobias': [False, True],
    'stride_pad': [(1, 0), (2, 1)],
}))
class TestDepthwiseConvolution2D(testing.LinkTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}

    def generate_params(self):
        return (np.random.uniform(-1, 1, (2, 3, 2, 3)).astype(self.dtype),
                np.random.uniform(-1, 1, 6).astype(self.dtype))

    def create_link(self, initializers):
        W, b = initializers
        stride, pad = self.stride_pad
        return DepthwiseConvolution2D(3, 2, (2, 3), stride, pad, self.nobias, W, b)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (2, 3, 4, 5)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        stride, pad = self.stride_pad
        b = None if self.nobias else link.b.array
        return _reference(x, link.W.array, b, stride, pad).astype(self.dtype),


def test_lazy_shapes():
    link = DepthwiseConvolution2D(None, 3, 2, initialW=initializers.Constant(1.0))
    assert link.W.array is None and link.b.array is None
    y = link(np.ones((1, 4, 3, 3), np.float32))
    assert link.W.shape == (3, 4, 2, 2) and link.b.shape == (12,) and link.in_channels == 4
    np.testing.assert_array_equal(y.array, np.full((1, 12, 2, 2), 4.0, np.float32))
    np.testing.assert_array_equal(link.b.array, np.zeros(12, np.float32))
    with pytest.raises(ValueError, match=r'x.shape=\(4, 3, 3\)'):
        DepthwiseConvolution2D(None, 3, 2)(np.ones((4, 3, 3), np.float32))


def test_arguments():
    link = DepthwiseConvolution2D(2, 3, 1, nobias=True)
    assert link.W.shape == (3, 2, 1, 1) and link.b is None
    with pytest.raises(ValueError, match='channel_multiplier'):
        DepthwiseConvolution2D(2, 0, 1)
