"""ConvolutionND / Convolution1D / Convolution3D links: every device, lazy channels, errors."""

# ruff: noqa: NPY002

import itertools

import numpy as np
import pytest

from catena import initializers, testing
from catena.links.connection.convolution_nd import Convolution1D, Convolution3D, ConvolutionND


def conv_nd(x, W, b, stride, pad, dilate, groups):
    """y[n, o, i...] = b[o] + sum over the group's channels and taps, in float64."""
    x = x.astype(np.float64)
    W = W.astype(np.float64)
    nd = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    ks = W.shape[2:]
    outs = [(xp.shape[2 + a] - (ks[a] - 1) * dilate[a] - 1) // stride[a] + 1
            for a in range(nd)]
    out_c, c_g = W.shape[:2]
    o_g = out_c // groups
    y = np.zeros((x.shape[0], out_c) + tuple(outs))
    for o in range(out_c):
        g = o // o_g
        for pos in itertools.product(*[range(n) for n in outs]):
            window = tuple(slice(pos[a] * stride[a],
                                 pos[a] * stride[a] + (ks[a] - 1) * dilate[a] + 1, dilate[a])
                           for a in range(nd))
            patch = xp[(slice(None), slice(g * c_g, (g + 1) * c_g)) + window]
            y[(slice(None), o) + pos] = (patch * W[o]).reshape(x.shape[0], -1).sum(1)
    if b is not None:
        y += b.astype(np.float64).reshape((1, -1) + (1,) * nd)
    return y


def _tuple(v, nd):
    return tuple(v) if isinstance(v, tuple) else (v,) * nd


@testing.parameterize(*testing.product({
    'ndim': [1, 2, 3],
    'dtype': [np.float32, np.float64],
    'nobias': [False, True],
}) + testing.product({
    'ndim': [1, 3],
    'dtype': [np.float16, np.float32],
    'nobias': [False],
    'stride': [2],
    'pad': [0],
    'dilate': [2],
    'groups': [2],
}))
class TestConvolutionND(testing.LinkTestCase):

    stride = 1
    pad = 1
    dilate = 1
    groups = 1
    in_channels = 4
    out_channels = 2

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}

    def _ksize(self):
        return (3, 2, 2)[:self.ndim] if self.ndim != 1 else (3,)

    def generate_params(self):
        W = np.random.uniform(-1, 1, (self.out_channels, self.in_channels // self.groups)
                              + self._ksize()).astype(self.dtype)
        return W, np.random.uniform(-1, 1, self.out_channels).astype(self.dtype)

    def create_link(self, initializers):
        W, b = initializers
        args = (self.in_channels, self.out_channels, self._ksize(), self.stride, self.pad,
                self.nobias, W, b)
        kwargs = {'dilate': self.dilate, 'groups': self.groups}
        if self.ndim == 1:
            return Convolution1D(*args, **kwargs)
        if self.ndim == 3:
            return Convolution3D(*args, **kwargs)
        return ConvolutionND(self.ndim, *args, **kwargs)

    def generate_inputs(self):
        spatial = (6, 5, 5)[:self.ndim]
        return np.random.uniform(-1, 1, (2, self.in_channels) + spatial).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        y = conv_nd(x, link.W.array, None if self.nobias else link.b.array,
                    _tuple(self.stride, self.ndim), _tuple(self.pad, self.ndim),
                    _tuple(self.dilate, self.ndim), self.groups)
        return y.astype(self.dtype),


def test_shapes_and_attributes():
    link = ConvolutionND(3, 2, 4, (1, 2, 3), stride=(1, 2, 1), pad=1)
    assert link.W.shape == (4, 2, 1, 2, 3) and link.b.shape == (4,)
    assert (link.ksize, link.stride, link.pad) == ((1, 2, 3), (1, 2, 1), (1, 1, 1))
    assert Convolution1D(2, 3, 4).W.shape == (3, 2, 4)
    assert Convolution3D(2, 3, 2, nobias=True).b is None


def test_cover_all():
    x = np.ones((1, 1, 5), np.float32)
    assert Convolution1D(1, 1, 2, stride=2)(x).shape == (1, 1, 2)
    assert Convolution1D(1, 1, 2, stride=2, cover_all=True)(x).shape == (1, 1, 3)


def test_lazy_channels():
    link = ConvolutionND(2, 3, 2, initialW=initializers.Constant(1.0))
    assert link.W.array is None and link.out_channels == 3 and link.ksize == (2, 2)
    y = link(np.ones((1, 5, 3, 3), np.float32))
    assert link.W.shape == (3, 5, 2, 2) and link.in_channels == 5
    np.testing.assert_array_equal(y.array, np.full((1, 3, 2, 2), 20.0, np.float32))
    link = Convolution1D(None, 2, 3)
    with pytest.raises(ValueError, match=r'\(n, c, w\).*x.shape=\(1, 2, 3, 3\)'):
        link(np.ones((1, 2, 3, 3), np.float32))
    link = Convolution3D(None, 2, 1, groups=2)
    with pytest.raises(ValueError, match='input channels'):
        link(np.ones((1, 3, 2, 2, 2), np.float32))


def test_bad_arguments():
    with pytest.raises(ValueError, match='ndim'):
        ConvolutionND(0, 1, 1, 1)
    with pytest.raises(ValueError, match='ksize'):
        ConvolutionND(2, 1, 1, (1, 2, 3))
    with pytest.raises(ValueError, match='output channels'):
        Convolution1D(2, 3, 1, groups=2)


@pytest.mark.parametrize('groups', [1, 2])
def test_from_params(groups):
    source = ConvolutionND(3, 4, 6, (3, 2, 1), groups=groups)
    link = ConvolutionND.from_params(source.W, source.b, stride=2, pad=1, groups=groups)
    assert link.ndim == 3 and link.ksize == (3, 2, 1) and link.in_channels == 4
    assert link.stride == (2, 2, 2) and link.pad == (1, 1, 1)
    np.testing.assert_array_equal(link.W.array, source.W.array)
    np.testing.assert_array_equal(link.b.array, source.b.array)
    assert link.W.array is not source.W.array
    assert ConvolutionND.from_params(source.W.array, nobias=True).b is None
    with pytest.raises(ValueError, match='nobias'):
        ConvolutionND.from_params(source.W, source.b, nobias=True)
    with pytest.raises(ValueError, match='3 axes'):
        ConvolutionND.from_params(np.zeros((2, 3), np.float32))
