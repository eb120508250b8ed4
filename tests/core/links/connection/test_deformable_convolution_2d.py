"""DeformableConvolution2D link: every device with half-pixel offsets, structure, lazy."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
from catena import initializers, testing
from catena.links.connection.deformable_convolution_2d import (
    DeformableConvolution2D,
    DeformableConvolution2DSampler,
)


def _conv_valid(x, W, stride):
    k_h, k_w = W.shape[2:]
    oh = (x.shape[2] - k_h) // stride + 1
    ow = (x.shape[3] - k_w) // stride + 1
    y = np.zeros((x.shape[0], W.shape[0], oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride:i * stride + k_h, j * stride:j * stride + k_w]
            y[:, :, i, j] = np.einsum('nchw,ochw->no', patch, W)
    return y


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'stride_pad': [(1, 0), (2, 1)],
    'deform_nobias': [False, True],
}))
class TestDeformableConvolution2D(testing.LinkTestCase):
    """The offset convolution starts with W = 0 and a bias that shifts every tap
    half a pixel right and down (away from the kinks at integer coordinates), so
    each tap reads the mean of a 2x2 block of pixels."""

    check_backward_options = {'atol': 1e-3, 'rtol': 1e-2}

    def create_link(self, initializers):
        stride, pad = self.stride_pad
        shift = np.full(8, 0.5, self.dtype)
        with catena.using_config('dtype', self.dtype):
            link = DeformableConvolution2D(
                2, 3, 2, stride, pad, offset_initialW=np.zeros((8, 2, 2, 2), self.dtype),
                offset_initial_bias=shift, deform_nobias=self.deform_nobias)
        link.deform_conv.W.array[...] = np.random.uniform(-1, 1, (3, 2, 2, 2))
        if not self.deform_nobias:
            link.deform_conv.b.array[...] = np.random.uniform(-1, 1, 3)
        return link

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (2, 2, 4, 5)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        stride, pad = self.stride_pad
        xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pad, pad + 1), (pad, pad + 1)])
        half = 0.25 * (xp[..., :-1, :-1] + xp[..., :-1, 1:] + xp[..., 1:, :-1] + xp[..., 1:, 1:])
        y = _conv_valid(half, link.deform_conv.W.array.astype(np.float64), stride)
        if not self.deform_nobias:
            y += link.deform_conv.b.array.reshape(1, -1, 1, 1)
        return y.astype(self.dtype),


def test_structure_and_zero_offsets_is_a_convolution():
    link = DeformableConvolution2D(None, 3, (2, 3), offset_initialW=0.0,
                                   deform_initialW=initializers.Constant(1.0))
    x = np.random.uniform(-1, 1, (1, 2, 3, 4)).astype(np.float32)
    y = link(x)
    assert link.offset_conv.W.shape == (12, 2, 2, 3)
    assert link.deform_conv.W.shape == (3, 2, 2, 3)
    expected = _conv_valid(x.astype(np.float64), np.ones((3, 2, 2, 3)), 1)
    np.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)
    assert sorted(name for name, _ in link.namedparams()) == [
        '/deform_conv/W', '/deform_conv/b', '/offset_conv/W', '/offset_conv/b']


def test_nobias_flags_and_sampler():
    link = DeformableConvolution2D(2, 3, 2, offset_nobias=True, deform_nobias=True)
    assert link.offset_conv.b is None and link.deform_conv.b is None
    sampler = DeformableConvolution2DSampler(None, 2, 1)
    with pytest.raises(ValueError, match=r'\(n, c, h, w\)'):
        sampler(np.ones((1, 2, 3), np.float32), np.zeros((1, 2, 3), np.float32))


def test_default_filters_start_at_zero():
    link = DeformableConvolution2D(2, 3, 2)
    assert not link.deform_conv.W.array.any()
    assert link.offset_conv.W.array.any()
    assert not DeformableConvolution2DSampler(2, 3, 2).W.array.any()
