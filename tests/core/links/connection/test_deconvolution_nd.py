"""Deconvolution2D / DeconvolutionND / 1D / 3D links: every device, lazy channels, errors."""

# ruff: noqa: NPY002

import itertools

import numpy as np
import pytest

from catena import initializers, testing
from catena.links.connection.deconvolution_2d import Deconvolution2D
from catena.links.connection.deconvolution_nd import (
    Deconvolution1D,
    Deconvolution3D,
    DeconvolutionND,
)


def deconv_nd(x, W, b, stride, pad, dilate, groups, outsize=None):
    """Scatters every input element times its filter onto the output, in float64."""
    x = x.astype(np.float64)
    W = W.astype(np.float64)
    nd = x.ndim - 2
    ks = W.shape[2:]
    full = [stride[a] * (x.shape[2 + a] - 1) + (ks[a] - 1) * dilate[a] + 1 for a in range(nd)]
    if outsize is None:
        outsize = [full[a] - 2 * pad[a] for a in range(nd)]
    size = [max(full[a], outsize[a] + 2 * pad[a]) for a in range(nd)]
    in_c, o_g = W.shape[:2]
    c_g = in_c // groups
    y = np.zeros((x.shape[0], o_g * groups) + tuple(size))
    for c in range(in_c):
        g = c // c_g
        for pos in itertools.product(*[range(n) for n in x.shape[2:]]):
            window = tuple(slice(pos[a] * stride[a],
                                 pos[a] * stride[a] + (ks[a] - 1) * dilate[a] + 1, dilate[a])
                           for a in range(nd))
            value = x[(slice(None), c) + pos].reshape((-1, 1) + (1,) * nd)
            y[(slice(None), slice(g * o_g, (g + 1) * o_g)) + window] += value * W[c]
    crop = tuple(slice(pad[a], pad[a] + outsize[a]) for a in range(nd))
    y = y[(slice(None), slice(None)) + crop]
    if b is not None:
        y = y + b.astype(np.float64).reshape((1, -1) + (1,) * nd)
    return y


def _tuple(v, nd):
    return tuple(v) if isinstance(v, tuple) else (v,) * nd


@testing.parameterize(*testing.product({
    'cls': ['2d', 'nd1', '1d', '3d'],
    'dtype': [np.float32, np.float64],
    'nobias': [False, True],
}) + testing.product({
    'cls': ['2d', '1d'],
    'dtype': [np.float16, np.float32],
    'nobias': [False],
    'stride': [2],
    'pad': [1],
    'dilate': [1, 2],
    'groups': [2],
    'outsize_extra': [0, 1],
}))
class TestDeconvolution(testing.LinkTestCase):

    stride = 1
    pad = 0
    dilate = 1
    groups = 1
    outsize_extra = None
    in_channels = 4
    out_channels = 2

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}

    @property
    def nd(self):
        return {'2d': 2, 'nd1': 1, '1d': 1, '3d': 3}[self.cls]

    def _ksize(self):
        return (3, 2, 2)[:self.nd]

    def _spatial(self):
        return (4, 3, 3)[:self.nd]

    def _outsize(self):
        if self.outsize_extra is None:
            return None
        return tuple(self.stride * (d - 1) + (k - 1) * self.dilate + 1 - 2 * self.pad
                     + self.outsize_extra for d, k in zip(self._spatial(), self._ksize()))

    def generate_params(self):
        W = np.random.uniform(-1, 1, (self.in_channels, self.out_channels // self.groups)
                              + self._ksize()).astype(self.dtype)
        return W, np.random.uniform(-1, 1, self.out_channels).astype(self.dtype)

    def create_link(self, initializers):
        W, b = initializers
        args = (self.in_channels, self.out_channels, self._ksize(), self.stride, self.pad,
                self.nobias, self._outsize(), W, b)
        kwargs = {'dilate': self.dilate, 'groups': self.groups}
        cls = {'2d': Deconvolution2D, '1d': Deconvolution1D, '3d': Deconvolution3D}.get(self.cls)
        if cls is None:
            return DeconvolutionND(self.nd, *args, **kwargs)
        return cls(*args, **kwargs)

    def generate_inputs(self):
        shape = (2, self.in_channels) + self._spatial()
        return np.random.uniform(-1, 1, shape).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        y = deconv_nd(x, link.W.array, None if self.nobias else link.b.array,
                      _tuple(self.stride, self.nd), _tuple(self.pad, self.nd),
                      _tuple(self.dilate, self.nd), self.groups, self._outsize())
        return y.astype(self.dtype),


def test_shapes():
    link = Deconvolution2D(3, 4, (2, 3), stride=2, groups=1)
    assert link.W.shape == (3, 4, 2, 3) and link.b.shape == (4,)
    assert Deconvolution2D(4, 6, 2, groups=2).W.shape == (4, 3, 2, 2)
    assert DeconvolutionND(3, 2, 3, 2, nobias=True).b is None
    assert Deconvolution1D(2, 3, 4).W.shape == (2, 3, 4)
    assert Deconvolution3D(2, 3, 1).W.shape == (2, 3, 1, 1, 1)


def test_lazy_channels_and_errors():
    link = Deconvolution2D(3, 2, initialW=initializers.Constant(1.0))
    assert link.W.array is None and link.out_channels == 3
    y = link(np.ones((1, 5, 2, 2), np.float32))
    assert link.W.shape == (5, 3, 2, 2) and y.shape == (1, 3, 3, 3)
    assert float(y.array[0, 0, 1, 1]) == 20.0
    link = DeconvolutionND(1, None, 2, 2, groups=2)
    with pytest.raises(ValueError, match='input channels'):
        link(np.ones((1, 3, 4), np.float32))
    with pytest.raises(ValueError, match=r'x.shape=\(1, 4\)'):
        link(np.ones((1, 4), np.float32))
    with pytest.raises(ValueError, match='outsize'):
        Deconvolution2D(1, 1, 2, outsize=(3,))
