"""Convolution2D link: forward/backward on every device, lazy channels, arguments, errors."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
from catena import backend, initializers, testing
from catena.links.connection.convolution_2d import Convolution2D


def _conv_reference(x, W, b, stride, pad, dilate, groups):
    """A direct loop over output pixels, in float64."""
    n, c, h, w = x.shape
    out_c, c_g, kh, kw = W.shape
    sy, sx = stride
    ph, pw = pad
    dy, dx = dilate
    xp = np.zeros((n, c, h + 2 * ph, w + 2 * pw))
    xp[:, :, ph:ph + h, pw:pw + w] = x
    oh = (h + 2 * ph - (kh - 1) * dy - 1) // sy + 1
    ow = (w + 2 * pw - (kw - 1) * dx - 1) // sx + 1
    y = np.zeros((n, out_c, oh, ow))
    o_g = out_c // groups
    for o in range(out_c):
        g = o // o_g
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * c_g:(g + 1) * c_g,
                           i * sy:i * sy + (kh - 1) * dy + 1:dy,
                           j * sx:j * sx + (kw - 1) * dx + 1:dx]
                y[:, o, i, j] = (patch * W[o]).sum(axis=(1, 2, 3))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'nobias': [False, True],
}) + testing.product({
    'dtype': [np.float32],
    'nobias': [False],
    'ksize': [(2, 3)],
    'stride': [(2, 1)],
    'pad': [(1, 0)],
    'dilate': [1, 2],
    'groups': [1, 2],
}))
class TestConvolution2D(testing.LinkTestCase):

    ksize = 3
    stride = 1
    pad = 1
    dilate = 1
    groups = 1
    in_channels = 4
    out_channels = 2
    x_shape = (2, 4, 5, 6)

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}

    def _pair(self, v):
        return v if isinstance(v, tuple) else (v, v)

    def generate_params(self):
        kh, kw = self._pair(self.ksize)
        W = np.random.uniform(-1, 1, (self.out_channels, self.in_channels // self.groups,
                                      kh, kw)).astype(self.dtype)
        b = np.random.uniform(-1, 1, self.out_channels).astype(self.dtype)
        return W, b

    def create_link(self, initializers):
        W, b = initializers
        return Convolution2D(self.in_channels, self.out_channels, self.ksize, self.stride,
                             self.pad, self.nobias, initialW=W, initial_bias=b,
                             dilate=self.dilate, groups=self.groups)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.x_shape).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        b = None if self.nobias else link.b.array.astype(np.float64)
        y = _conv_reference(x.astype(np.float64), link.W.array.astype(np.float64), b,
                            self._pair(self.stride), self._pair(self.pad),
                            self._pair(self.dilate), self.groups)
        return y.astype(self.dtype),


def test_attributes_and_shapes():
    link = Convolution2D(3, 4, 3, stride=2, pad=(1, 0), dilate=(1, 2))
    assert link.W.shape == (4, 3, 3, 3) and link.b.shape == (4,)
    assert (link.ksize, link.stride, link.pad, link.dilate) == ((3, 3), (2, 2), (1, 0), (1, 2))
    assert (link.in_channels, link.out_channels, link.groups) == (3, 4, 1)
    np.testing.assert_array_equal(link.b.array, np.zeros(4, np.float32))
    assert Convolution2D(4, 6, 2, nobias=True, groups=2).W.shape == (6, 2, 2, 2)
    assert Convolution2D(3, 4, 2, nobias=True).b is None


def test_two_argument_form_is_lazy():
    link = Convolution2D(6, 3, initialW=initializers.Constant(1.0))
    assert link.W.array is None and link.out_channels == 6 and link.ksize == (3, 3)
    x = np.ones((2, 5, 4, 4), np.float32)
    y = link(x)
    assert link.W.shape == (6, 5, 3, 3) and link.in_channels == 5
    np.testing.assert_array_equal(y.array, np.full((2, 6, 2, 2), 45.0, np.float32))


def test_lazy_with_groups_and_errors():
    link = Convolution2D(None, 4, 1, groups=2, initialW=initializers.Constant(1.0))
    assert link(np.ones((1, 6, 2, 2), np.float32)).shape == (1, 4, 2, 2)
    assert link.W.shape == (4, 3, 1, 1)
    link = Convolution2D(None, 4, 1, groups=2)
    with pytest.raises(ValueError, match='input channels'):
        link(np.ones((1, 3, 2, 2), np.float32))
    with pytest.raises(ValueError, match=r'\(n, c, h, w\).*x.shape=\(3, 2, 2\)'):
        link(np.ones((3, 2, 2), np.float32))
    assert link.W.array is None


def test_lazy_on_fake_device():
    link = Convolution2D(None, 2, 2, initialW=initializers.Constant(1.0))
    link.to_device('@fake')
    device = backend.get_device('@fake')
    y = link(device.send_array(np.ones((1, 3, 3, 3), np.float32)))
    assert backend.get_device_from_array(link.W.array) == device
    assert backend.get_device_from_array(y.array) == device
    np.testing.assert_array_equal(np.asarray(y.array), np.full((1, 2, 2, 2), 12.0, np.float32))


def test_bad_arguments():
    with pytest.raises(ValueError, match='output channels'):
        Convolution2D(4, 3, 1, groups=2)
    with pytest.raises(ValueError, match='input channels'):
        Convolution2D(3, 4, 1, groups=2)
    with pytest.raises(ValueError, match='stride'):
        Convolution2D(3, 4, 1, stride=(1, 2, 3))
    with pytest.raises(ValueError, match='pad'):
        Convolution2D(3, 4, 1, pad=-1)
    with pytest.raises(TypeError, match='ksize'):
        Convolution2D(3, 4, 1.5)
    with pytest.raises(catena.utils.type_check.InvalidType):
        Convolution2D(3, 4, 1)(np.ones((1, 2, 3, 3), np.float32))


def test_default_weight_is_lecun_normal():
    if not hasattr(initializers, 'LeCunNormal'):
        pytest.skip('catena.initializers.LeCunNormal is not there yet')
    W = Convolution2D(16, 32, 5).W.array
    fan_in = 16 * 5 * 5
    assert abs(W.std() - 1 / np.sqrt(fan_in)) < 0.1 / np.sqrt(fan_in)


def test_from_params():
    W = np.random.uniform(-1, 1, (4, 1, 2, 3)).astype(np.float32)
    link = Convolution2D.from_params(W, stride=2, groups=2)
    assert (link.in_channels, link.out_channels, link.ksize) == (2, 4, (2, 3))
    np.testing.assert_array_equal(link.W.array, W)
    np.testing.assert_array_equal(link.b.array, np.zeros(4, np.float32))
    with pytest.raises(ValueError, match='4-dimensional'):
        Convolution2D.from_params(W[0])


def test_repr():
    assert repr(Convolution2D(3, 4, 2, nobias=True)) == (
        'Convolution2D(in_channels=3, out_channels=4, ksize=(2, 2), stride=(1, 1), '
        'pad=(0, 0), nobias=True, dilate=(1, 1), groups=1)')


def test_from_params_takes_parameters():
    source = Convolution2D(4, 2, 3, groups=2)
    source.b.array[...] = 1
    link = Convolution2D.from_params(source.W, source.b, groups=2)
    np.testing.assert_array_equal(link.W.array, source.W.array)
    np.testing.assert_array_equal(link.b.array, source.b.array)
