"""DilatedConvolution2D link: every device, lazy channels, arguments."""

# ruff: noqa: NPY002

import numpy as np
import pytest

from catena import initializers, testing
from catena.links.connection.dilated_convolution_2d import DilatedConvolution2D


def _reference(x, W, b, stride, pad, dilate):
    x = x.astype(np.float64)
    W = W.astype(np.float64)
    xp = np.pad(x, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    out_c, _, kh, kw = W.shape
    span_h, span_w = (kh - 1) * dilate + 1, (kw - 1) * dilate + 1
    oh = (xp.shape[2] - span_h) // stride + 1
    ow = (xp.shape[3] - span_w) // stride + 1
    y = np.zeros((x.shape[0], out_c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + span_h:dilate,
                       j * stride:j * stride + span_w:dilate]
            y[:, :, i, j] = np.einsum('nchw,ochw->no', patch, W)
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'nobias': [False, True],
    'stride_pad_dilate': [(1, 0, 2), (2, 2, 3)],
}))
class TestDilatedConvolution2D(testing.LinkTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}

    def generate_params(self):
        return (np.random.uniform(-1, 1, (2, 3, 2, 2)).astype(self.dtype),
                np.random.uniform(-1, 1, 2).astype(self.dtype))

    def create_link(self, initializers):
        W, b = initializers
        stride, pad, dilate = self.stride_pad_dilate
        return DilatedConvolution2D(3, 2, 2, stride, pad, dilate, self.nobias, W, b)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (2, 3, 5, 4)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        stride, pad, dilate = self.stride_pad_dilate
        b = None if self.nobias else link.b.array.astype(np.float64)
        return _reference(x, link.W.array, b, stride, pad, dilate).astype(self.dtype),


def test_lazy_and_attributes():
    link = DilatedConvolution2D(4, 2, dilate=2, initialW=initializers.Constant(1.0))
    assert link.W.array is None and link.dilate == (2, 2) and link.out_channels == 4
    y = link(np.ones((1, 3, 5, 5), np.float32))
    assert link.W.shape == (4, 3, 2, 2)
    np.testing.assert_array_equal(y.array, np.full((1, 4, 3, 3), 12.0, np.float32))
    with pytest.raises(ValueError, match=r'\(n, c, h, w\)'):
        DilatedConvolution2D(None, 2, 2)(np.ones((1, 3, 5), np.float32))
    assert DilatedConvolution2D(3, 2, 2, nobias=True).b is None
